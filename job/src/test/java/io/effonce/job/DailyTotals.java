package io.effonce.job;

import io.effonce.dedup.RecordedSetting;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.job.migrate.TwoStageLayout;
import io.effonce.sink.SinkChange;
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
 * The second stage of the two-stage layout the job ran until 0.2.x, kept as the tests' reference
 * model (the merchant stage must count what dedup and this count) and to write two-stage state for
 * the migration's tests. Each merchant's day in one currency: adds every accepted change, emits the
 * new absolute total, and when the watermark passes the end of the day plus the acceptance horizon
 * emits {@code Retire} and clears its state. Deduplication sends anything that late to {@code
 * late_events}, so a retired day is closed. A sum that would overflow a {@code long} is a dead
 * letter, never a wrap-around.
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
    public static final String TOTAL_STATE = TwoStageLayout.TOTAL_STATE;

    private final DayFinality finality;
    private final OutputTag<DeadLetter> deadLetters;

    private transient ValueState<DailyTotal> total;
    private transient Counter overflows;

    public DailyTotals(DayFinality finality, OutputTag<DeadLetter> deadLetters) {
        this.finality = finality;
        this.deadLetters = deadLetters;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        finality.recordedZone().check(context.getOperatorStateStore(), context.isRestored());
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
        DailyTotal after = TotalAddition.added(before, change);
        if (after == null) {
            overflows.inc();
            ctx.output(deadLetters, TotalAddition.overflow(change, before));
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

    /** The end of the key's day in the job's zone, plus the horizon: when the day is final. */
    long retireAt(MerchantDayKey key) {
        return finality.finalAt(key.day());
    }
}
