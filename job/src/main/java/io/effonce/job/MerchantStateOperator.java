package io.effonce.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;

/**
 * An operator holding the merchant stage's keyed state ({@link MerchantState}): the stage itself,
 * and the layout migration's bootstrap, which writes the same state for it. One registration, so
 * the two can never disagree on a name, a namespace or a serializer.
 */
public abstract class MerchantStateOperator<OUT> extends AbstractStreamOperator<OUT>
        implements Triggerable<String, Long> {

    private static final long serialVersionUID = 1L;

    protected transient InternalMapState<String, Long, String, Boolean> seen;
    protected transient InternalMapState<String, Long, String, DailyTotal> totals;
    protected transient MapState<Long, Boolean> openDays;
    protected transient InternalTimerService<Long> timers;

    /** Registers the state and the timer service (in {@code open()}). */
    @SuppressWarnings("unchecked")
    protected void openMerchantState(@Nullable Duration stateTtl) throws Exception {
        seen =
                (InternalMapState<String, Long, String, Boolean>)
                        getOrCreateKeyedState(
                                LongSerializer.INSTANCE, MerchantState.seenIds(stateTtl));
        totals =
                (InternalMapState<String, Long, String, DailyTotal>)
                        getOrCreateKeyedState(
                                LongSerializer.INSTANCE,
                                MerchantState.dayTotals(
                                        getExecutionConfig().getSerializerConfig()));
        openDays = getPartitionedState(MerchantState.openDays());
        timers =
                getInternalTimerService(MerchantState.TIMER_SERVICE, LongSerializer.INSTANCE, this);
    }

    /** The current merchant's open days. */
    protected List<Long> openDaysOfKey() throws Exception {
        List<Long> days = new ArrayList<>();
        for (Long day : openDays.keys()) {
            days.add(day);
        }
        return days;
    }

    /** Opens the current merchant's day: indexed, and retired by a timer at {@code finalAt}. */
    protected void openDay(long day, long finalAt) throws Exception {
        openDays.put(day, Boolean.TRUE);
        timers.registerEventTimeTimer(day, finalAt);
    }
}
