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
 */
@Internal
public record RangeOwner(AttemptId id, long restoredCheckpoint, long lastBarrier) {

    public static final int UNKNOWN = -1;

    public RangeOwner {
        Objects.requireNonNull(id, "id");
    }

    /** An owner recorded before the fence recorded barriers. */
    public RangeOwner(AttemptId id, long restoredCheckpoint) {
        this(id, restoredCheckpoint, restoredCheckpoint);
    }

    /** The owner recorded for a claim that took its range. */
    public static RangeOwner of(Claim claim) {
        return new RangeOwner(claim.id(), claim.restoredOrZero());
    }

    /** The same owner, having passed barrier {@code barrier}. */
    public RangeOwner passed(long barrier) {
        return new RangeOwner(id, restoredCheckpoint, Math.max(lastBarrier, barrier));
    }

    /**
     * Whether this owner and {@code claim} were deployed by different execution graphs, both known:
     * attempt numbers of the two do not compare.
     */
    public boolean otherGraphThan(Claim claim) {
        return id.otherGraphThan(claim.id());
    }

    /** Whether this owner and {@code claim} are attempts of the same subtask of the same run. */
    public boolean sameSubtaskAs(Claim claim) {
        return id.sameSubtaskAs(claim.id());
    }
}
