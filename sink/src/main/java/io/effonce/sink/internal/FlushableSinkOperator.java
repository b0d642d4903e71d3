package io.effonce.sink.internal;

import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.SinkChange;
import io.effonce.sink.store.DayFinality;
import io.effonce.sink.store.FencedException;
import io.effonce.sink.store.KeyGroupSpan;
import io.effonce.sink.store.Ownership;
import io.effonce.sink.store.Progress;
import io.effonce.sink.store.RangeSurvey;
import io.effonce.sink.store.StoredRow;
import io.effonce.sink.store.TotalsStore;
import io.effonce.sink.store.TotalsStoreFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Preconditions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flushable sink as a keyed operator. It keeps the last value of every live key in keyed state,
 * buffers upserts per key, and writes them as absolute SETs tagged with the id of the last
 * checkpoint barrier it has passed. Before its first write in an attempt it takes its key groups in
 * the fence and runs the {@link RestoreFlush full flush} (after a restore) or the fresh-start check
 * (otherwise).
 *
 * <p>All writes happen on the task thread: a failed write fails the element, the timer or the
 * checkpoint that caused it, so no error can be lost in the background.
 */
public final class FlushableSinkOperator<K, V> extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<SinkChange<K, V>, Void> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(FlushableSinkOperator.class);

    /** Name of the keyed state holding each live key's last value. Fixed for savepoints. */
    public static final String LAST_VALUE_STATE = "flushable-sink-last-value";

    private final TotalsStoreFactory<K, V> storeFactory;
    private final TypeInformation<V> valueType;
    private final SinkSettings settings;

    /** The run this operator belongs to: see {@code FlushableSink}'s run id. */
    private final String runId;

    private transient ValueState<V> lastValue;

    /**
     * Each key changed since the last barrier: written to {@link #lastValue} once per key before
     * the next barrier (state is only read after a restore, so it only has to be right at a
     * checkpoint), and staged for the committed table.
     */
    private transient Map<K, Change<V>> changedSinceBarrier;

    /**
     * A key's last value since the last barrier ({@code null}: none since), and whether it retired
     * after it. A key can change and retire between two barriers: its state goes, its last value is
     * still its final committed one.
     */
    private record Change<V>(V last, boolean retired) {}

    private transient WriteBuffer<K, V> buffer;
    private transient TotalsStore<K, V> store;
    private transient QuarantiningWriter<K, V> writer;
    private transient SinkMetrics metrics;
    private transient int maxParallelism;
    private transient OptionalLong restoredCheckpointId;

    /** Id of the last checkpoint barrier this subtask passed; the tag of every write. */
    private transient long barrierTag;

    /** The event-time watermark this subtask has passed ({@code Long.MIN_VALUE}: none yet). */
    private transient long watermark;

    /** The watermark at each barrier whose checkpoint has not been committed yet. */
    private transient NavigableMap<Long, Long> watermarkAtBarrier;

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
        lastValue =
                context.getKeyedStateStore()
                        .getState(new ValueStateDescriptor<>(LAST_VALUE_STATE, valueType));
        restoredCheckpointId =
                context.isRestored() ? context.getRestoredCheckpointId() : OptionalLong.empty();
        barrierTag = restoredCheckpointId.orElse(0L);
    }

    @Override
    public void open() throws Exception {
        super.open();
        buffer = new WriteBuffer<>();
        changedSinceBarrier = new HashMap<>();
        watermark = Long.MIN_VALUE;
        watermarkAtBarrier = new TreeMap<>();
        metrics = new SinkMetrics(getMetricGroup(), buffer::size, () -> barrierTag);
        TaskInfo task = getRuntimeContext().getTaskInfo();
        maxParallelism = task.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        maxParallelism,
                        task.getNumberOfParallelSubtasks(),
                        task.getIndexOfThisSubtask());
        KeyGroupSpan span = new KeyGroupSpan(range.getStartKeyGroup(), range.getEndKeyGroup());
        // The job id alone cannot tell a restart from a new deployment: with HA in application
        // mode every deployment has the job id 00000000000000000000000000000000.
        String owner = getRuntimeContext().getJobInfo().getJobId() + "/" + runId;
        store = storeFactory.create();
        writer = new QuarantiningWriter<>(store, metrics.quarantinedRows);
        if (restoredCheckpointId.isEmpty()) {
            // Before taking the range: a refused attempt that took it would make Flink's restart
            // of the same task look like this run restarting, and flush the totals away.
            refuseFreshStartOverRows(span, owner);
        }
        Ownership ownership =
                store.takeOwnership(
                        span,
                        owner,
                        task.getTaskNameWithSubtasks() + " attempt " + task.getAttemptNumber());
        LOG.info(
                "{} owns {} of {} with fencing token {} (previous owners: {}); restored checkpoint: {}",
                task.getTaskNameWithSubtasks(),
                span,
                store.tableName(),
                ownership.token(),
                ownership.previousJobs(),
                restoredCheckpointId);
        if (restoredCheckpointId.isPresent()) {
            metrics.flushed(flushAfterRestore(restoredCheckpointId.getAsLong()));
            reconcileCommitted(restoredCheckpointId.getAsLong());
        } else if (ownership.previousJobs().contains(owner)) {
            // This run of the job (a task restart, or a JobManager failover that recovered the
            // graph) wrote here before but completed no checkpoint: everything it wrote in this
            // range belongs to an erased run. A flush from "checkpoint 0" with empty state
            // removes exactly that. A new deployment, whatever its job id, is a fresh start.
            metrics.flushed(flushAfterRestore(0L));
            store.discardStagedAfter(0L);
        } else if (settings.resetOnFreshStart()) {
            long deleted = store.deleteAll();
            LOG.warn(
                    "Fresh start with reset: deleted {} rows of {} in {}",
                    deleted,
                    store.tableName(),
                    span);
        }
        scheduleFlushTimer();
    }

    private FlushReport flushAfterRestore(long checkpointId) {
        RestoreFlush<K, V> flush =
                new RestoreFlush<>(
                        store,
                        writer,
                        this::keyGroupOf,
                        settings.batchSize(),
                        settings.deleteStaleOnFlush());
        return flush.run(checkpointId, this::forEachKeyInState, this::heldInState);
    }

    private void forEachKeyInState(java.util.function.BiConsumer<K, V> action) {
        try {
            this.<K>getKeyedStateBackend()
                    .applyToAllKeys(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new ValueStateDescriptor<>(LAST_VALUE_STATE, valueType),
                            (K key, ValueState<V> state) -> action.accept(key, state.value()));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the sink's restored state", e);
        }
    }

    private boolean heldInState(K key) {
        setCurrentKey(key);
        try {
            return lastValue.value() != null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Refuses a start without state on a range that holds rows this run did not write, unless
     * {@code sink.reset-on-fresh-start} is set; changes nothing in the store.
     */
    private void refuseFreshStartOverRows(KeyGroupSpan span, String owner) {
        RangeSurvey found = store.survey(span);
        if (found.owners().contains(owner) || !found.hasRows() || settings.resetOnFreshStart()) {
            return;
        }
        Set<String> previousOwners = found.owners();
        throw new IllegalStateException(
                "Refusing a fresh start: table "
                        + store.tableName()
                        + " already holds rows in "
                        + span
                        + ", written by "
                        + previousOwners
                        + ", and this job has no restored state to flush them against. "
                        + whereToRestoreFrom(previousOwners)
                        + " Or set "
                        + FlushableSinkOptions.RESET_ON_FRESH_START.key()
                        + "=true to delete those rows first.");
    }

    /** Names the newest retained checkpoint of the previous owners, if the job can see one. */
    private String whereToRestoreFrom(Set<String> previousOwners) {
        Optional<String> dir = checkpointsDir();
        Optional<String> newest = dir.flatMap(d -> RetainedCheckpoints.newest(d, previousOwners));
        if (newest.isPresent()) {
            return "Restore the job from the newest retained checkpoint, "
                    + newest.get()
                    + " (flink run -s "
                    + newest.get()
                    + " ...), or from a newer savepoint.";
        }
        return "Restore the job from its last retained checkpoint (in "
                + dir.map(d -> d.replaceAll("/+$", "") + "/<job id>/chk-<n>")
                        .orElse("execution.checkpointing.dir")
                + ") or savepoint.";
    }

    /** {@code execution.checkpointing.dir}, from the job's configuration or the cluster's. */
    private Optional<String> checkpointsDir() {
        var env = getContainingTask().getEnvironment();
        return env.getJobConfiguration()
                .getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY)
                .or(
                        () ->
                                env.getTaskManagerInfo()
                                        .getConfiguration()
                                        .getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY));
    }

    @Override
    public void processElement(StreamRecord<SinkChange<K, V>> element) throws Exception {
        SinkChange<K, V> change = element.getValue();
        if (change.isRetire()) {
            // The row stays as the final value; only the state goes. A pending upsert of this
            // key is still written.
            changedSinceBarrier.compute(
                    change.key(), (k, was) -> new Change<>(was == null ? null : was.last(), true));
            return;
        }
        changedSinceBarrier.put(change.key(), new Change<>(change.value(), false));
        buffer.put(change.key(), change.value());
        if (buffer.size() >= settings.batchSize()) {
            writeBuffer();
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        writeChangedState();
        // Everything tagged below checkpointId is durable before this subtask acknowledges it.
        writeBuffer();
        stageChangedValues(checkpointId);
        changedSinceBarrier.clear();
        watermarkAtBarrier.put(checkpointId, watermark);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        // The end of a bounded input says nothing about event time a database can hold.
        if (mark.getTimestamp() != Long.MAX_VALUE) {
            watermark = mark.getTimestamp();
        }
    }

    /**
     * How far the totals of checkpoint {@code checkpointId} are complete: this subtask's watermark
     * at that barrier. Forgets the barriers up to it.
     */
    private Progress progressAt(long checkpointId) {
        Map.Entry<Long, Long> at = watermarkAtBarrier.floorEntry(checkpointId);
        watermarkAtBarrier.headMap(checkpointId, true).clear();
        if (at == null || at.getValue() == Long.MIN_VALUE) {
            return Progress.UNKNOWN;
        }
        long w = at.getValue();
        DayFinality finality = settings.finality();
        return finality == null
                ? new Progress(w, null, null)
                : new Progress(w, finality.finalThrough(w), finality.zone().getId());
    }

    /** Writes each changed key's last value to state; keeps the changes for the next stage. */
    private void writeChangedState() throws IOException {
        for (Map.Entry<K, Change<V>> e : changedSinceBarrier.entrySet()) {
            setCurrentKey(e.getKey());
            if (e.getValue().retired()) {
                lastValue.clear();
            } else {
                lastValue.update(e.getValue().last());
            }
        }
    }

    /**
     * Stages the values the changed keys have at this barrier, to be committed when the checkpoint
     * completes. A key retired with no change since the last barrier stages nothing: its committed
     * row stays as its final value, as in the live table.
     */
    private void stageChangedValues(long checkpointId) {
        List<StoredRow<K, V>> values = new ArrayList<>(changedSinceBarrier.size());
        changedSinceBarrier.forEach(
                (key, change) -> {
                    if (change.last() != null) {
                        values.add(
                                new StoredRow<>(key, change.last(), keyGroupOf(key), checkpointId));
                    }
                });
        writer.stage(checkpointId, values);
    }

    /** Commits the checkpoint for this subtask's range: its staged values become committed. */
    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        metrics.committed(checkpointId, store.commit(checkpointId, progressAt(checkpointId)));
    }

    /**
     * After a restore from {@code checkpointId}: what the erased run staged later goes; what was
     * staged up to it is committed (its notification may never have come); and a committed value
     * from a later checkpoint — only after an operator restored an older savepoint — is rolled back
     * to restored state, or removed where state holds no value.
     */
    private void reconcileCommitted(long checkpointId) throws IOException {
        store.discardStagedAfter(checkpointId);
        store.recordRestore(checkpointId);
        metrics.committed(checkpointId, store.commit(checkpointId, Progress.UNKNOWN));
        List<StoredRow<K, V>> set = new ArrayList<>();
        List<K> remove = new ArrayList<>();
        for (K key : store.keysCommittedAfter(checkpointId)) {
            setCurrentKey(key);
            V value = lastValue.value();
            if (value == null) {
                remove.add(key);
            } else {
                set.add(new StoredRow<>(key, value, keyGroupOf(key), checkpointId));
            }
        }
        store.rollBackCommitted(set, remove);
        if (!set.isEmpty() || !remove.isEmpty()) {
            LOG.warn(
                    "Rolled the committed values of {} keys back to checkpoint {} and removed {}:"
                            + " an older checkpoint or savepoint was restored",
                    set.size(),
                    checkpointId,
                    remove.size());
        }
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
    }

    @Override
    public void finish() throws Exception {
        writeChangedState();
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
        if (buffer.isEmpty()) {
            return;
        }
        List<StoredRow<K, V>> rows = buffer.drain(barrierTag, this::keyGroupOf);
        long start = System.nanoTime();
        int quarantined;
        try {
            quarantined = writer.write(rows);
        } catch (FencedException e) {
            metrics.fencedWrites.inc();
            throw e;
        }
        metrics.batchWritten(rows.size() - quarantined, start);
    }

    private int keyGroupOf(K key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
    }
}
