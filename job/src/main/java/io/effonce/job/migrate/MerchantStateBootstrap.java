package io.effonce.job.migrate;

import io.effonce.dedup.Lateness;
import io.effonce.dedup.WatermarkFloor;
import io.effonce.job.DayFinality;
import io.effonce.job.MerchantStateOperator;
import java.time.Duration;
import java.time.LocalDate;
import javax.annotation.Nullable;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.state.api.output.TaggedOperatorSubtaskState;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Writes the merchant stage's state ({@link MerchantState}) as the stage itself would hold it,
 * keyed by merchant: each open day's totals, the ids placed in it, the index of open days, one
 * timer per merchant-day at its {@code finalAt}; and its operator state: the watermark floor
 * carried over from the dedup stage (the subtask that receives the floor entries writes their
 * largest, the others an empty floor; a restore takes the largest of all), the horizon and zone
 * recorded. At the end of its input it snapshots itself into the new savepoint, as the State
 * Processor API's own bootstrap operators do.
 */
final class MerchantStateBootstrap extends MerchantStateOperator<TaggedOperatorSubtaskState>
        implements OneInputStreamOperator<MigratedEntry, TaggedOperatorSubtaskState>,
                BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final long checkpointId;
    private final long timestamp;
    private final Path savepointPath;
    private final DayFinality finality;
    @Nullable private final Duration stateTtl;

    private transient WatermarkFloor floor;

    MerchantStateBootstrap(
            long checkpointId,
            long timestamp,
            Path savepointPath,
            DayFinality finality,
            @Nullable Duration stateTtl) {
        this.checkpointId = checkpointId;
        this.timestamp = timestamp;
        this.savepointPath = savepointPath;
        this.finality = finality;
        this.stateTtl = stateTtl;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        floor = new WatermarkFloor();
        floor.initialize(context.getOperatorStateStore(), false);
        // Recorded as the merchant stage records them (RequireRecorded checked the old values).
        Lateness.recordedHorizon(finality.horizon().toMillis())
                .check(context.getOperatorStateStore(), false);
        finality.recordedZone().check(context.getOperatorStateStore(), false);
    }

    @Override
    public void open() throws Exception {
        super.open();
        openMerchantState(stateTtl);
    }

    @Override
    public void processElement(StreamRecord<MigratedEntry> element) throws Exception {
        MigratedEntry entry = element.getValue();
        if (entry.isFloor()) {
            // One subtask gets the dedup stage's floors; a restore takes the largest entry.
            floor.advance(entry.floor);
        } else if (entry.isId()) {
            openDay(entry.day, finality.finalAt(LocalDate.ofEpochDay(entry.day)));
            seen.setCurrentNamespace(entry.day);
            seen.put(entry.eventId, Boolean.TRUE);
        } else {
            openDay(entry.day, finality.finalAt(LocalDate.ofEpochDay(entry.day)));
            totals.setCurrentNamespace(entry.day);
            totals.put(entry.currency, entry.dailyTotal());
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        floor.snapshot();
    }

    @Override
    public void endInput() throws Exception {
        output.collect(
                new StreamRecord<>(
                        BootstrapSnapshot.of(this, checkpointId, timestamp, savepointPath)));
    }

    @Override
    public void onEventTime(InternalTimer<String, Long> timer) {
        // Writing state only: timers are stored, never fired here.
    }

    @Override
    public void onProcessingTime(InternalTimer<String, Long> timer) {
        // Writing state only.
    }
}
