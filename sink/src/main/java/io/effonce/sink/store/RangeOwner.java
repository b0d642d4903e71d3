package io.effonce.sink.store;

/**
 * An attempt the fence names as the owner of key groups in a range. Rows written before the fence
 * recorded attempts (an upgraded table) carry {@link #UNKNOWN} in the numeric fields; they order
 * before every attempt.
 *
 * @param run the owner's {@code <job id>/<run id>}
 * @param restoredCheckpoint what the owner restored, 0 for a start without state
 */
public record RangeOwner(
        String run,
        String task,
        int subtask,
        int parallelism,
        int attempt,
        long restoredCheckpoint) {

    public static final int UNKNOWN = -1;

    /** The owner recorded for a claim that took its range. */
    public static RangeOwner of(Claim claim) {
        return new RangeOwner(
                claim.run(),
                claim.task(),
                claim.subtask(),
                claim.parallelism(),
                claim.attempt(),
                claim.restoredOrZero());
    }

    /** Whether this owner and {@code claim} are attempts of the same subtask of the same run. */
    public boolean sameSubtaskAs(Claim claim) {
        return run.equals(claim.run())
                && subtask == claim.subtask()
                && parallelism == claim.parallelism();
    }
}
