package io.effonce.sink.internal;

import io.effonce.jdbc.DriverRegistrations;
import io.effonce.jdbc.TransactionFailedException;
import io.effonce.sink.SinkChange;
import io.effonce.sink.SinkStoreFactory;
import java.util.OptionalLong;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The flushable sink as a keyed operator: Flink's hooks, each handed to the room that owns the
 * work. {@link SinkKeyedState} keeps the last value of every live key; {@link LiveWriter} writes
 * upserts and deletes as absolute SETs tagged with the id of the last checkpoint barrier passed;
 * {@link CheckpointCycle} stages at the barrier and commits on the completion notice; {@link
 * AttemptStart} runs the {@link StartProtocol start protocol} before the attempt's first write:
 * take the key groups or be refused, then flush, reset or begin, as the database's record of the
 * range decides.
 *
 * <p>All writes happen on the task thread: a failed write fails the element, the timer or the
 * checkpoint that caused it, so no error can be lost in the background.
 */
@Internal
public final class FlushableSinkOperator<K, V> extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<SinkChange<K, V>, Void> {

    private static final long serialVersionUID = 1L;

    private final SinkStoreFactory<K, V> storeFactory;
    private final TypeInformation<V> valueType;
    private final SinkSettings settings;

    /** The run this operator belongs to: see {@code FlushableSink}'s run id. */
    private final String runId;

    private transient SinkKeyedState<K, V> keyedState;
    private transient LineageState lineageState;
    private transient RunLineage lineage;

    private transient OptionalLong restoredCheckpointId;
    private transient int maxParallelism;

    private transient ChangesSinceBarrier<K, V> changedSinceBarrier;
    private transient SinkStore<K, V> store;
    private transient SinkMetrics metrics;
    private transient LiveWriter<K, V> live;
    private transient CheckpointCycle<K, V> cycle;
    private transient AttemptStart<K, V> start;

    public FlushableSinkOperator(
            SinkStoreFactory<K, V> storeFactory,
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
        lineageState = new LineageState(context);
        restoredCheckpointId =
                context.isRestored() ? context.getRestoredCheckpointId() : OptionalLong.empty();
    }

    @Override
    public void open() throws Exception {
        super.open();
        WriteBuffer<K, V> buffer = new WriteBuffer<>();
        metrics = new SinkMetrics(getMetricGroup(), buffer::size);
        ClassLoader jobLoader = FlushableSinkOperator.class.getClassLoader();
        getRuntimeContext()
                .registerUserCodeClassLoaderReleaseHookIfAbsent(
                        DriverRegistrations.RELEASE_HOOK,
                        () -> DriverRegistrations.releaseLoadedBy(jobLoader));
        TaskInfo task = getRuntimeContext().getTaskInfo();
        maxParallelism = task.getMaxNumberOfParallelSubtasks();
        KeyGroupSpan span = TaskClaim.span(task);
        Claim claim =
                TaskClaim.atStart(
                        getRuntimeContext().getJobInfo().getJobId(),
                        runId,
                        task,
                        getContainingTask().getEnvironment().getExecutionId(),
                        restoredCheckpointId,
                        lineageState.restored(),
                        lineageState.restoredStagedFrom());
        lineage = claim.lineage();
        DeploymentConfig deployment = DeploymentConfig.of(getContainingTask().getEnvironment());
        deployment.refuseRescalingWithinARun();
        changedSinceBarrier = new ChangesSinceBarrier<>();
        try {
            store = storeFactory.create();
            QuarantiningWriter<K, V> writer =
                    new QuarantiningWriter<>(
                            store, store, store.tableName(), metrics.quarantinedRows);
            live =
                    new LiveWriter<>(
                            buffer,
                            writer,
                            metrics,
                            settings.batchSize(),
                            this::keyGroupOf,
                            () -> cycle.tag(),
                            () -> !start.awaitingFirstBarrier());
            cycle =
                    new CheckpointCycle<>(
                            restoredCheckpointId.orElse(0L),
                            store,
                            store,
                            store.tableName(),
                            writer,
                            settings.progress(),
                            metrics);
            metrics.tagOf(cycle::tag);
            StartProtocol<K, V> protocol =
                    new StartProtocol<>(store, writer, this::keyGroupOf, settings, metrics);
            start =
                    new AttemptStart<>(
                            protocol,
                            span,
                            claim,
                            keyedState.restored(),
                            deployment.checkpointsDir());
            metrics.startWaits(start::awaitingFirstBarrier);
            start.atOpen();
        } catch (TransactionFailedException e) {
            throw SinkMisconfiguredException.atStart(e, storeFactory.tablesScript());
        }
        live.scheduleWrites(getProcessingTimeService(), settings.flushInterval().toMillis());
    }

    @Override
    public void processElement(StreamRecord<SinkChange<K, V>> element) throws Exception {
        SinkChange<K, V> change = element.getValue();
        if (change.isRetire()) {
            // The row stays as the final value; only the state goes. A pending upsert of this
            // key is still written.
            changedSinceBarrier.retired(change.key());
            return;
        }
        if (change.isDelete()) {
            changedSinceBarrier.deleted(change.key());
            live.delete(change.key());
        } else {
            changedSinceBarrier.changed(change.key(), change.value());
            live.put(change.key(), change.value());
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        lineageState.atBarrier(checkpointId);
        start.atBarrier(checkpointId);
        keyedState.apply(changedSinceBarrier);
        // Everything tagged below checkpointId is durable before this subtask acknowledges it.
        live.writeAll();
        cycle.stage(checkpointId, changedSinceBarrier.staged(checkpointId, this::keyGroupOf));
        changedSinceBarrier.clear();
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        cycle.watermark(mark.getTimestamp());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (!start.awaitingFirstBarrier()) { // else it took part in no checkpoint yet
            cycle.completed(checkpointId);
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        if (cycle != null) {
            cycle.aborted(checkpointId);
        }
    }

    @Override
    public OperatorSnapshotFutures snapshotState(
            long checkpointId,
            long timestamp,
            CheckpointOptions checkpointOptions,
            CheckpointStreamFactory factory)
            throws Exception {
        cycle.snapshotting(checkpointId, checkpointOptions.getCheckpointType().isSavepoint());
        return super.snapshotState(checkpointId, timestamp, checkpointOptions, factory);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        lineageState.snapshot(lineage);
    }

    @Override
    public void finish() throws Exception {
        // Flink finishes and closes an operator whose open() failed too: then nothing was started.
        if (start != null && start.mayWriteAtEnd()) {
            keyedState.apply(changedSinceBarrier);
            live.writeAll();
        }
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (start != null) {
                start.atClose();
            }
            if (store != null) {
                store.close();
            }
        } finally {
            super.close();
        }
    }

    private int keyGroupOf(K key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
    }
}
