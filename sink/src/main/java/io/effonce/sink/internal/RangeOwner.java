package io.effonce.sink.internal;

import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * An attempt the fence names as the owner of key groups in a range. Rows written before the fence
 * recorded attempts (an upgraded table) carry {@link #UNKNOWN} in the numeric fields; they order
 * before every attempt.
 *
 * @param id which attempt
 * @param restoredCheckpoint what the owner restored, 0 for a start without state
 * @param lastBarrier the newest checkpoint barrier the owner passed in the range, or what it
 *     restored when it passed none since it took the range
 * @param suspectFrom the oldest tag under which an attempt outside the lineage of what the owner
 *     restored may have written in the range, as its takeover found it ({@link
 *     RangeRecord#outsideTheLineageFrom}); {@link #NO_SUSPICION} when none, and once the owner
 *     passed a barrier: its restore flush, which repairs those rows, ended before. An owner that
 *     dies first hands the suspicion on to the next takeover, which no longer sees the owner it
 *     displaced
 */
@Internal
public record RangeOwner(
        AttemptId id, long restoredCheckpoint, long lastBarrier, long suspectFrom) {

    public static final int UNKNOWN = -1;

    public static final long NO_SUSPICION = Long.MAX_VALUE;

    public RangeOwner {
        Objects.requireNonNull(id, "id");
    }

    /** An owner that suspects no other lineage's writes. */
    public RangeOwner(AttemptId id, long restoredCheckpoint, long lastBarrier) {
        this(id, restoredCheckpoint, lastBarrier, NO_SUSPICION);
    }

    /** An owner recorded before the fence recorded barriers. */
    public RangeOwner(AttemptId id, long restoredCheckpoint) {
        this(id, restoredCheckpoint, restoredCheckpoint);
    }

    /** The owner recorded for a claim that took its range, having found {@code found} there. */
    public static RangeOwner taking(Claim claim, RangeRecord found) {
        long restored = claim.restoredOrZero();
        long suspect =
                claim.restoredCheckpoint().isPresent()
                        ? found.outsideTheLineageFrom(restored)
                        : restored;
        return new RangeOwner(
                claim.id(), restored, restored, suspect < restored ? suspect : NO_SUSPICION);
    }

    /** The same owner, having passed barrier {@code barrier} (its restore flush ended). */
    public RangeOwner passed(long barrier) {
        return new RangeOwner(id, restoredCheckpoint, Math.max(lastBarrier, barrier));
    }

    /** The same owner, its recorded barrier fallen back to what it restored. */
    public RangeOwner revoked() {
        return new RangeOwner(id, restoredCheckpoint, restoredCheckpoint, suspectFrom);
    }

    /**
     * Whether this owner and {@code claim} were deployed by different execution graphs, both known:
     * attempt numbers of the two do not compare.
     */
    public boolean otherGraphThan(Claim claim) {
        return id.otherGraphThan(claim.id());
    }

    /** For the start's log line: the suspicion only where there is one. */
    @Override
    public String toString() {
        return "RangeOwner[id="
                + id
                + ", restoredCheckpoint="
                + restoredCheckpoint
                + ", lastBarrier="
                + lastBarrier
                + (suspectFrom == NO_SUSPICION ? "" : ", suspectFrom=" + suspectFrom)
                + "]";
    }

    /** Whether this owner and {@code claim} are attempts of the same subtask of the same run. */
    public boolean sameSubtaskAs(Claim claim) {
        return id.sameSubtaskAs(claim.id());
    }
}
