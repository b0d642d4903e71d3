package io.effonce.sink.internal;

import io.effonce.jdbc.DriverRegistrations;
import io.effonce.jdbc.TransactionFailedException;
import io.effonce.sink.SinkChange;
import io.effonce.sink.tables.AttemptId;
import io.effonce.sink.tables.Claim;
import io.effonce.sink.tables.FencedException;
import io.effonce.sink.tables.KeyGroupSpan;
import io.effonce.sink.tables.Progress;
import io.effonce.sink.tables.RunLineage;
import io.effonce.sink.tables.SinkMisconfiguredException;
import io.effonce.sink.tables.StoredRow;
import io.effonce.sink.tables.TotalsStore;
import io.effonce.sink.tables.TotalsStoreFactory;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Preconditions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flushable sink as a keyed operator. It keeps the last value of every live key in keyed state,
 * buffers upserts and deletes per key, and writes them as absolute SETs tagged with the id of the
 * last checkpoint barrier it has passed. Before its first write in an attempt it runs the {@link
 * RestoreProtocol start protocol} once: take the key groups or be refused, then flush, reset or
 * begin, as the database's record of the range decides.
 *
 * <p>All writes happen on the task thread: a failed write fails the element, the timer or the
 * checkpoint that caused it, so no error can be lost in the background.
 */
@Internal
public final class FlushableSinkOperator<K, V> extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<SinkChange<K, V>, Void> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(FlushableSinkOperator.class);

    /** Name of the keyed state holding each live key's last value. Fixed for savepoints. */
    public static final String LAST_VALUE_STATE = SinkKeyedState.LAST_VALUE_STATE;

    /**
     * Name of the keyed state holding a retired key's final value for {@code
     * sink.retired-retention}. Fixed for savepoints.
     */
    public static final String RETIRED_VALUE_STATE = SinkKeyedState.RETIRED_VALUE_STATE;

    /** Name of the operator state holding the state's {@link RunLineage}. Fixed for savepoints. */
    static final String LINEAGE_STATE = "flushable-sink-lineage";

    private final TotalsStoreFactory<K, V> storeFactory;
    private final TypeInformation<V> valueType;
    private final SinkSettings settings;

    /** The run this operator belongs to: see {@code FlushableSink}'s run id. */
    private final String runId;

    private transient SinkKeyedState<K, V> keyedState;

    /** The runs the restored state descends from, in operator state; then this run too. */
    private transient ListState<String> lineageState;

    private transient RunLineage restoredLineage;

    private transient RunLineage lineage;

    private transient ChangesSinceBarrier<K, V> changedSinceBarrier;

    private transient WriteBuffer<K, V> buffer;
    private transient TotalsStore<K, V> store;
    private transient QuarantiningWriter<K, V> writer;
    private transient SinkMetrics metrics;
    private transient int maxParallelism;
    private transient OptionalLong restoredCheckpointId;

    /** Id of the last checkpoint barrier this subtask passed; the tag of every write. */
    private transient long barrierTag;

    private transient BarrierWatermarks watermarks;

    private transient RestoreProtocol<K, V> protocol;
    private transient KeyGroupSpan span;
    private transient Claim claim;
    private transient Optional<String> checkpointsDir;

    /**
     * The start protocol told this attempt to ask again at its first barrier (row 3b of {@link
     * StartDecision}): until then it owns nothing and writes nothing; its output waits in the
     * buffer and in {@link ChangesSinceBarrier}, and its keyed state is still the restored state.
     */
    private transient boolean awaitingFirstBarrier;

    /** Barriers of savepoints this attempt passed whose completion notice has not come yet. */
    private transient Set<Long> savepointBarriers;

    public FlushableSinkOperator(
            TotalsStoreFactory<K, V> storeFactory,
            TypeInformation<V> valueType,
            SinkSettings settings,
            String runId) {
        this.storeFactory = storeFactory;
        this.valueType = valueType;
        this.settings = settings;
        this.runId = runId;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        keyedState =
                new SinkKeyedState<>(
                        context.getKeyedStateStore(),
                        getKeyedStateBackend(),
                        valueType,
                        settings.retiredRetention());
        lineageState =
                context.getOperatorStateStore()
                        .getUnionListState(new ListStateDescriptor<>(LINEAGE_STATE, Types.STRING));
        restoredLineage =
                context.isRestored() ? RunLineage.of(lineageState.get()) : RunLineage.UNKNOWN;
        restoredCheckpointId =
                context.isRestored() ? context.getRestoredCheckpointId() : OptionalLong.empty();
        barrierTag = restoredCheckpointId.orElse(0L);
    }

    @Override
    public void open() throws Exception {
        super.open();
        buffer = new WriteBuffer<>();
        changedSinceBarrier = new ChangesSinceBarrier<>();
        watermarks = new BarrierWatermarks();
        savepointBarriers = new HashSet<>();
        metrics = new SinkMetrics(getMetricGroup(), buffer::size, () -> barrierTag);
        ClassLoader jobLoader = FlushableSinkOperator.class.getClassLoader();
        getRuntimeContext()
                .registerUserCodeClassLoaderReleaseHookIfAbsent(
                        DriverRegistrations.RELEASE_HOOK,
                        () -> DriverRegistrations.releaseLoadedBy(jobLoader));
        TaskInfo task = getRuntimeContext().getTaskInfo();
        maxParallelism = task.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        maxParallelism,
                        task.getNumberOfParallelSubtasks(),
                        task.getIndexOfThisSubtask());
        span = new KeyGroupSpan(range.getStartKeyGroup(), range.getEndKeyGroup());
        // The job id alone cannot tell a restart from a new deployment: with HA in application
        // mode every deployment has the job id 00000000000000000000000000000000.
        claim =
                new Claim(
                        new AttemptId(
                                getRuntimeContext().getJobInfo().getJobId() + "/" + runId,
                                task.getTaskNameWithSubtasks()
                                        + " attempt "
                                        + task.getAttemptNumber(),
                                task.getIndexOfThisSubtask(),
                                task.getNumberOfParallelSubtasks(),
                                task.getAttemptNumber(),
                                ExecutionGraphOf.attempt(
                                        getContainingTask().getEnvironment().getExecutionId())),
                        restoredCheckpointId,
                        OptionalLong.empty(),
                        restoredLineage);
        lineage = claim.lineage();
        DeploymentConfig deployment = DeploymentConfig.of(getContainingTask().getEnvironment());
        deployment.refuseRescalingWithinARun();
        checkpointsDir = deployment.checkpointsDir();
        try {
            store = storeFactory.create();
            writer = new QuarantiningWriter<>(store, metrics.quarantinedRows);
            protocol = new RestoreProtocol<>(store, writer, this::keyGroupOf, settings, metrics);
            awaitingFirstBarrier =
                    !protocol.start(span, claim, keyedState.restored(), checkpointsDir);
        } catch (TransactionFailedException e) {
            // A login refused or a table missing at start: no restart makes it work.
            throw e.misconfiguration()
                    ? new SinkMisconfiguredException(e, storeFactory.tablesScript())
                    : e;
        }
        scheduleFlushTimer();
    }

    /** What this attempt's restore flush did ({@link FlushReport#NONE} when it ran none). */
    public FlushReport lastFlush() {
        return metrics.lastFlush();
    }

    @Override
    public void processElement(StreamRecord<SinkChange<K, V>> element) throws Exception {
        SinkChange<K, V> change = element.getValue();
        if (change.isDelete()) {
            changedSinceBarrier.deleted(change.key());
            buffer.delete(change.key());
            if (buffer.size() >= settings.batchSize()) {
                writeBuffer();
            }
            return;
        }
        if (change.isRetire()) {
            // The row stays as the final value; only the state goes. A pending upsert of this
            // key is still written.
            changedSinceBarrier.retired(change.key());
            return;
        }
        changedSinceBarrier.changed(change.key(), change.value());
        buffer.put(change.key(), change.value());
        if (buffer.size() >= settings.batchSize()) {
            writeBuffer();
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (awaitingFirstBarrier) {
            // The keyed state is still the restored state: the flush reads it before this
            // barrier's changes go into it.
            Preconditions.checkState(
                    protocol.start(
                            span,
                            claim.atFirstBarrier(checkpointId),
                            keyedState.restored(),
                            checkpointsDir),
                    "A claim made at a barrier is decided");
            awaitingFirstBarrier = false;
        }
        keyedState.apply(changedSinceBarrier);
        // Everything tagged below checkpointId is durable before this subtask acknowledges it.
        writeBuffer();
        writer.stage(checkpointId, changedSinceBarrier.staged(checkpointId, this::keyGroupOf));
        changedSinceBarrier.clear();
        watermarks.barrier(checkpointId);
        store.recordBarrier(checkpointId);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        watermarks.passed(mark.getTimestamp());
    }

    /**
     * Commits the checkpoint for this subtask's range: its staged values become committed. A
     * savepoint is not committed, only acknowledged: Flink never restores a savepoint by itself (it
     * is not in the completed-checkpoint store), so after a stop-with-savepoint that fails once the
     * savepoint completed, Flink restores the checkpoint before it. Committed values from the
     * savepoint would then step back, and its run would look as if it had committed past the
     * checkpoint it restores. Its staged values stay staged: the next checkpoint, or a deployment
     * restored from the savepoint, commits them.
     */
    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (awaitingFirstBarrier) {
            return; // not a checkpoint this attempt took part in: it passed no barrier yet
        }
        if (savepointBarriers.remove(checkpointId)) {
            store.acknowledgeSavepoint(checkpointId);
            LOG.info(
                    "Savepoint {} completed: acknowledged for {}, not committed (Flink restores"
                            + " checkpoints by itself, never savepoints)",
                    checkpointId,
                    store.tableName());
            return;
        }
        Progress progress = watermarks.progressAt(checkpointId, settings.progress());
        metrics.committed(checkpointId, store.commit(checkpointId, progress), progress);
    }

    /** A savepoint that will not complete leaves no mark behind. */
    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        if (savepointBarriers != null) {
            savepointBarriers.remove(checkpointId);
        }
    }

    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId,
            long timestamp,
            CheckpointOptions checkpointOptions,
            CheckpointStreamFactory factory)
            throws Exception {
        if (checkpointOptions.getCheckpointType().isSavepoint()) {
            savepointBarriers.add(checkpointId);
        }
        return super.snapshotState(checkpointId, timestamp, checkpointOptions, factory);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        long checkpointId = context.getCheckpointId();
        Preconditions.checkState(
                checkpointId > barrierTag,
                "Barrier %s arrived after barrier %s: tags must only grow",
                checkpointId,
                barrierTag);
        barrierTag = checkpointId;
        lineageState.update(lineage.entries());
    }

    @Override
    public void finish() throws Exception {
        if (awaitingFirstBarrier) {
            // Owns nothing yet: the final checkpoint's barrier, if it comes, takes and writes.
            LOG.warn(
                    "{}: input ended before the first barrier this attempt waits for; its output"
                            + " is written at the final checkpoint's barrier, or not at all",
                    claim.task());
            super.finish();
            return;
        }
        keyedState.apply(changedSinceBarrier);
        writeBuffer();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            super.close();
        }
    }

    private void scheduleFlushTimer() {
        long interval = settings.flushInterval().toMillis();
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + interval,
                        time -> {
                            writeBuffer();
                            scheduleFlushTimer();
                        });
    }

    private void writeBuffer() {
        if (buffer.isEmpty() || awaitingFirstBarrier) {
            return;
        }
        List<StoredRow<K, V>> drained = buffer.drain(barrierTag, this::keyGroupOf);
        Map<Boolean, List<StoredRow<K, V>>> split = StoredRow.byTombstone(drained);
        List<StoredRow<K, V>> rows = split.get(false);
        List<StoredRow<K, V>> tombstones = split.get(true);
        long start = System.nanoTime();
        int quarantined;
        try {
            quarantined = writer.write(rows) + writer.delete(tombstones);
        } catch (FencedException e) {
            metrics.fencedWrites.inc();
            throw e;
        }
        metrics.batchWritten(drained.size() - quarantined, start);
    }

    private int keyGroupOf(K key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
    }
}
