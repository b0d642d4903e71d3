package io.effonce.sink.internal;

import io.effonce.sink.Progress;
import io.effonce.sink.ProgressRule;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.util.Preconditions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sink subtask's checkpoint cycle: stage each changed key's value at the barrier, commit on the
 * completion notice, forget an aborted savepoint. The id of the last barrier passed is the tag of
 * every live write.
 */
final class CheckpointCycle<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCycle.class);

    private final RangeFence fence;
    private final CommittedTable<K, V> committed;
    private final String tableName;
    private final QuarantiningWriter<K, V> writer;
    private final ProgressRule progressRule;
    private final SinkMetrics metrics;
    private final BarrierWatermarks watermarks = new BarrierWatermarks();

    /** Barriers of savepoints this attempt passed whose completion notice has not come yet. */
    private final Set<Long> savepointBarriers = new HashSet<>();

    /** Id of the last checkpoint barrier this subtask passed. */
    private long tag;

    CheckpointCycle(
            long restoredCheckpoint,
            RangeFence fence,
            CommittedTable<K, V> committed,
            String tableName,
            QuarantiningWriter<K, V> writer,
            ProgressRule progressRule,
            SinkMetrics metrics) {
        this.tag = restoredCheckpoint;
        this.fence = fence;
        this.committed = committed;
        this.tableName = tableName;
        this.writer = writer;
        this.progressRule = progressRule;
        this.metrics = metrics;
    }

    /** The tag of every write now: the id of the last barrier passed (or restored). */
    long tag() {
        return tag;
    }

    void watermark(long mark) {
        watermarks.passed(mark);
    }

    /**
     * Before barrier {@code checkpointId} goes on, with every write tagged below it done: stages
     * the keys changed since the last barrier and records the barrier in the fence.
     */
    void stage(long checkpointId, List<StoredRow<K, V>> changed) {
        writer.stage(checkpointId, changed);
        watermarks.barrier(checkpointId);
        fence.recordBarrier(checkpointId);
    }

    /** The snapshot of {@code checkpointId} starts: later writes carry its id. */
    void snapshotting(long checkpointId, boolean savepoint) {
        Preconditions.checkState(
                checkpointId > tag,
                "Barrier %s arrived after barrier %s: tags must only grow",
                checkpointId,
                tag);
        tag = checkpointId;
        if (savepoint) {
            savepointBarriers.add(checkpointId);
            fence.recordSavepointBarrier(checkpointId);
        }
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
    void completed(long checkpointId) {
        if (savepointBarriers.remove(checkpointId)) {
            committed.acknowledgeSavepoint(checkpointId);
            LOG.info(
                    "Savepoint {} completed: acknowledged for {}, not committed (Flink restores"
                            + " checkpoints by itself, never savepoints)",
                    checkpointId,
                    tableName);
            return;
        }
        Progress progress = watermarks.progressAt(checkpointId, progressRule);
        metrics.committed(checkpointId, committed.commit(checkpointId, progress), progress);
    }

    /** A savepoint that will not complete leaves no mark behind. */
    void aborted(long checkpointId) {
        savepointBarriers.remove(checkpointId);
    }
}
