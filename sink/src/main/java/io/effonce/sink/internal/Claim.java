package io.effonce.sink.internal;

import java.util.Objects;
import java.util.OptionalLong;
import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * A task attempt asking for its key-group range. The takeover compares it with what the fence and
 * the progress rows hold, inside the takeover transaction.
 *
 * @param id which attempt
 * @param maxParallelism the job's maximum parallelism: its state's key groups are those below it,
 *     so only fence rows below it speak of deployments of this job's shape (row 1c)
 * @param restoredCheckpoint the checkpoint or savepoint the attempt restored; empty on a start
 *     without state
 * @param firstBarrier the first checkpoint barrier the attempt passed, when it asks for its range
 *     at that barrier instead of at its start; the checkpoint-id counter survives a JobManager
 *     failover, so a barrier of the current JobManager is newer than any barrier of an earlier one
 * @param restoredLineage the runs the restored state descends from, the last of them the one that
 *     took the restored checkpoint (which differs from the attempt's run after a new deployment);
 *     {@link RunLineage#UNKNOWN} without restored state, or for a state that predates the record
 *     (then any run's commit counts as the proof it once was)
 * @param restoredStagedFrom the newest first barrier among the attempts that took the restored
 *     checkpoint: what the restored run staged from there through that checkpoint is of its branch
 *     (an earlier attempt of the run staged below it, maybe on a branch a restart erased); empty
 *     without restored state, or for a state that predates the record
 */
@Internal
public record Claim(
        AttemptId id,
        int maxParallelism,
        OptionalLong restoredCheckpoint,
        OptionalLong firstBarrier,
        RunLineage restoredLineage,
        OptionalLong restoredStagedFrom) {

    public Claim {
        Objects.requireNonNull(id, "id");
        if (maxParallelism < 1) {
            throw new IllegalArgumentException("maxParallelism " + maxParallelism + " < 1");
        }
        Objects.requireNonNull(restoredCheckpoint, "restoredCheckpoint");
        Objects.requireNonNull(firstBarrier, "firstBarrier");
        Objects.requireNonNull(restoredLineage, "restoredLineage");
        Objects.requireNonNull(restoredStagedFrom, "restoredStagedFrom");
    }

    /** A claim whose restored state names no first barrier of the attempts that took it. */
    public Claim(
            AttemptId id,
            int maxParallelism,
            OptionalLong restoredCheckpoint,
            OptionalLong firstBarrier,
            RunLineage restoredLineage) {
        this(
                id,
                maxParallelism,
                restoredCheckpoint,
                firstBarrier,
                restoredLineage,
                OptionalLong.empty());
    }

    /** Flink's upper bound of a maximum parallelism: every key group a job can have. */
    public static final int EVERY_KEY_GROUP = KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM;

    /**
     * A claim made at the attempt's start, by an attempt whose restored lineage and maximum
     * parallelism are not known (every key group of the table then speaks of its job).
     */
    public Claim(AttemptId id, OptionalLong restoredCheckpoint) {
        this(id, EVERY_KEY_GROUP, restoredCheckpoint, OptionalLong.empty(), RunLineage.UNKNOWN);
    }

    /** The same claim, made again at the attempt's first barrier {@code barrier}. */
    public Claim atFirstBarrier(long barrier) {
        return new Claim(
                id,
                maxParallelism,
                restoredCheckpoint,
                OptionalLong.of(barrier),
                restoredLineage,
                restoredStagedFrom);
    }

    public String run() {
        return id.run();
    }

    public String task() {
        return id.task();
    }

    public int subtask() {
        return id.subtask();
    }

    public int parallelism() {
        return id.parallelism();
    }

    public int attempt() {
        return id.attempt();
    }

    public String graph() {
        return id.graph();
    }

    /** The run that took the restored checkpoint; empty when not known. */
    public String restoredRun() {
        return restoredLineage.lastRun().orElse("");
    }

    /** The lineage of this claim's run: the restored one, continued by this run. */
    public RunLineage lineage() {
        return restoredLineage.continuedBy(id.run(), restoredOrZero());
    }

    /** The restored checkpoint, or 0 (before every checkpoint) on a start without state. */
    public long restoredOrZero() {
        return restoredCheckpoint.orElse(0L);
    }
}
