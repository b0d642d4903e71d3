package io.effonce.sink.tables;

import org.apache.flink.annotation.Internal;

/**
 * An attempt the fence names as the owner of key groups in a range. Rows written before the fence
 * recorded attempts (an upgraded table) carry {@link #UNKNOWN} in the numeric fields; they order
 * before every attempt.
 *
 * @param run the owner's {@code <job id>/<run id>}
 * @param restoredCheckpoint what the owner restored, 0 for a start without state
 * @param graph the execution graph that deployed the owner, empty when not known
 * @param lastBarrier the newest checkpoint barrier the owner passed in the range, or what it
 *     restored when it passed none since it took the range
 */
@Internal
public record RangeOwner(
        String run,
        String task,
        int subtask,
        int parallelism,
        int attempt,
        long restoredCheckpoint,
        String graph,
        long lastBarrier) {

    public static final int UNKNOWN = -1;

    /** An owner recorded before the fence recorded graphs and barriers. */
    public RangeOwner(
            String run,
            String task,
            int subtask,
            int parallelism,
            int attempt,
            long restoredCheckpoint) {
        this(run, task, subtask, parallelism, attempt, restoredCheckpoint, "", restoredCheckpoint);
    }

    /** The owner recorded for a claim that took its range. */
    public static RangeOwner of(Claim claim) {
        return new RangeOwner(
                claim.run(),
                claim.task(),
                claim.subtask(),
                claim.parallelism(),
                claim.attempt(),
                claim.restoredOrZero(),
                claim.graph(),
                claim.restoredOrZero());
    }

    /** The same owner, having passed barrier {@code barrier}. */
    public RangeOwner passed(long barrier) {
        return new RangeOwner(
                run,
                task,
                subtask,
                parallelism,
                attempt,
                restoredCheckpoint,
                graph,
                Math.max(lastBarrier, barrier));
    }

    /**
     * Whether this owner and {@code claim} were deployed by different execution graphs, both known:
     * attempt numbers of the two do not compare.
     */
    public boolean otherGraphThan(Claim claim) {
        return !graph.isEmpty() && !claim.graph().isEmpty() && !graph.equals(claim.graph());
    }

    /** Whether this owner and {@code claim} are attempts of the same subtask of the same run. */
    public boolean sameSubtaskAs(Claim claim) {
        return run.equals(claim.run())
                && subtask == claim.subtask()
                && parallelism == claim.parallelism();
    }
}
