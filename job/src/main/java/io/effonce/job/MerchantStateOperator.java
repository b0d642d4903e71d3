package io.effonce.job;

import io.effonce.sink.store.DailyTotal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.annotation.Nullable;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator holding the merchant stage's keyed state ({@link MerchantState}): the stage itself,
 * and the layout migration's bootstrap, which writes the same state for it. One registration, so
 * the two can never disagree on a name, a namespace or a serializer.
 */
public abstract class MerchantStateOperator<OUT> extends AbstractStreamOperator<OUT>
        implements Triggerable<String, Long> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(MerchantStateOperator.class);

    protected transient InternalMapState<String, Long, String, Boolean> seen;
    protected transient InternalMapState<String, Long, String, DailyTotal> totals;
    protected transient MapState<Long, Boolean> openDays;
    protected transient InternalTimerService<Long> timers;

    private transient boolean openDaysToIndex;

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        ListState<Boolean> kept =
                context.getOperatorStateStore().getUnionListState(MerchantState.openDaysKept());
        openDaysToIndex = context.isRestored() && !kept.get().iterator().hasNext();
        kept.update(List.of(Boolean.TRUE));
    }

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
        if (openDaysToIndex) {
            indexOpenDays();
        }
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

    /**
     * State of 0.2.x kept ids per day without an index of the days: the index is read once from the
     * namespaces of the remembered ids (the timers of those days are already in the state).
     */
    private void indexOpenDays() throws Exception {
        List<Tuple2<String, Long>> keyDays;
        try (Stream<Tuple2<String, Long>> stored =
                this.<String>getKeyedStateBackend()
                        .<Long>getKeysAndNamespaces(MerchantState.SEEN_STATE)) {
            keyDays = stored.distinct().toList();
        }
        for (Tuple2<String, Long> keyDay : keyDays) {
            setCurrentKey(keyDay.f0);
            openDays.put(keyDay.f1, Boolean.TRUE);
        }
        LOG.info(
                "The restored state was taken before release 0.3.0: indexed its {} open"
                        + " merchant-days once, so that a copy dated on another day finds its id",
                keyDays.size());
    }
}
