package io.effonce.job;

import io.effonce.dedup.RecordedSetting;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.job.decode.RejectReason;
import io.effonce.sink.SinkChange;
import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import java.time.ZoneId;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Each merchant's day in one currency: adds every accepted change, emits the new absolute total,
 * and when the watermark passes the end of the day plus the acceptance horizon emits {@code Retire}
 * and clears its state. Deduplication sends anything that late to {@code late_events}, so a retired
 * day is closed. A sum that would overflow a {@code long} is a dead letter, never a wrap-around.
 *
 * <p>The zone is recorded with the state ({@link RecordedSetting}): restored keys are days of the
 * recorded zone, so a restore with another zone is refused.
 */
public final class DailyTotals
        extends KeyedProcessFunction<
                MerchantDayKey, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** State name; fixed for savepoints. */
    public static final String TOTAL_STATE = "daily-total";

    private final DayFinality finality;
    private final OutputTag<DeadLetter> deadLetters;

    private transient ValueState<DailyTotal> total;
    private transient Counter overflows;

    public DailyTotals(DayFinality finality, OutputTag<DeadLetter> deadLetters) {
        this.finality = finality;
        this.deadLetters = deadLetters;
    }

    /** The zone, recorded with the state: every restored key's day is a date in it. */
    public static RecordedSetting recordedZone(DayFinality finality) {
        return new RecordedSetting(
                JobOptions.ZONE.key(),
                finality.zone().getId(),
                // Only another name of the same offset ("UTC", "Z", "Etc/UTC") is the same
                // calendar.
                (recorded, now) ->
                        ZoneId.of(recorded).normalized().equals(ZoneId.of(now).normalized()),
                "the restored totals are days of the recorded zone, and new changes would land in"
                        + " the same keys with other day boundaries.");
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        recordedZone(finality).check(context.getOperatorStateStore(), context.isRestored());
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        // The recorded zone is operator state already; nothing changes at a checkpoint.
    }

    @Override
    public void open(OpenContext openContext) {
        total =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>(TOTAL_STATE, DailyTotal.class));
        overflows = getRuntimeContext().getMetricGroup().counter("totalOverflows");
    }

    @Override
    public void processElement(
            PaymentChange change,
            Context ctx,
            Collector<SinkChange<MerchantDayKey, DailyTotal>> out)
            throws Exception {
        DailyTotal before = total.value();
        DailyTotal after = added(before, change);
        if (after == null) {
            overflows.inc();
            ctx.output(deadLetters, overflow(change, before));
            return;
        }
        total.update(after);
        if (before == null) {
            ctx.timerService().registerEventTimeTimer(retireAt(ctx.getCurrentKey()));
        }
        out.collect(SinkChange.upsert(ctx.getCurrentKey(), after));
    }

    @Override
    public void onTimer(
            long timestamp,
            OnTimerContext ctx,
            Collector<SinkChange<MerchantDayKey, DailyTotal>> out) {
        total.clear();
        out.collect(SinkChange.retire(ctx.getCurrentKey()));
    }

    /** {@code before} (none: a new day) plus the change; null if the sum would overflow. */
    static DailyTotal added(DailyTotal before, PaymentChange change) {
        if (before == null) {
            return new DailyTotal(change.amount(), 1);
        }
        try {
            return new DailyTotal(
                    Math.addExact(before.totalMinor(), change.amount()), before.payments() + 1);
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** The dead letter of a change whose amount would overflow its day's total. */
    static DeadLetter overflow(PaymentChange change, DailyTotal before) {
        return new DeadLetter(
                change.topic(),
                change.partition(),
                change.offset(),
                RejectReason.TOTAL_OVERFLOW.describe(
                        change.dayKey() + " at " + before.totalMinor()),
                change.eventId());
    }

    /** The end of the key's day in the job's zone, plus the horizon: when the day is final. */
    long retireAt(MerchantDayKey key) {
        return finality.finalAt(key.day());
    }
}
