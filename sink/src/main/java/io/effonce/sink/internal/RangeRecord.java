package io.effonce.sink.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;

/**
 * What a takeover transaction reads about a key-group range before it decides, with the range's
 * fence rows locked: the decision and the takeover see the same database.
 *
 * @param owners the attempts the fence names in the range (empty when nobody took it yet)
 * @param committedByClaimantRun the newest checkpoint the claimant's own run committed in the
 *     range, 0 when none
 * @param lastCommitted the newest checkpoint any run committed in the range, 0 when none
 * @param durableThrough the oldest checkpoint whose barrier every key group of the range is proven
 *     to have passed with its writes before it durable, else 0: a restore from a checkpoint no
 *     newer than this finds every write before that checkpoint's barrier in the table (see {@code
 *     RestoreFlush}). A key group proves checkpoint {@code x} by a commit of {@code x} (or an
 *     acknowledged savepoint {@code x}), or by its fence owner having recorded barrier {@code x}
 *     after its start, each written after every write of the key group before barrier {@code x};
 *     only the run that took the claim's restored checkpoint, or the claimant's own run, counts:
 *     another run's checkpoint ids are another timeline and prove nothing. A commit proves no more
 *     than the checkpoint a later takeover by another run restored ({@code
 *     sink_progress.proof_capped_at}): that run wrote from there on before its first commit
 * @param claimantRunSuperseded whether a later deployment took over from the claimant's run
 * @param hasRows whether the live, staged or committed table holds a row in the range
 * @param newestDeletion the newest barrier tag under which a live row of the range was deleted (a
 *     delete, or a flush's stale key), 0 when none
 * @param committedLineages the lineages of the runs whose commit is the latest in some key group of
 *     the range (rows from before the lineage was recorded name none)
 * @param savepointBranchErasedAt when the claim restores a savepoint whose barrier its run passed
 *     in the range and that run (or a run restored from its checkpoints) afterwards restored an
 *     older checkpoint, erasing the savepoint's branch: the oldest checkpoint so restored. The
 *     run's commits and barriers since are of the branch that forked there, and prove nothing for
 *     the savepoint; everything tagged from there on may be that branch's. Empty otherwise
 * @param newestRepair the newest checkpoint a restore of the range repaired from state ({@code
 *     sink_repairs}: the database had gone back), 0 when none: the rows tagged below it hold that
 *     checkpoint's values, not an older one's. Only repairs of the claimant's run or of the run
 *     that took the claim's restored checkpoint count: another run's ids are another timeline
 * @param leases each run that owns key groups of the range and has not closed its writer, with how
 *     long ago, by the database's clock, it last took them or passed a barrier in them: a run seen
 *     recently still runs ({@link StartDecision}'s row 5a)
 * @param laterDeployment a run deployed after the claimant's that owns key groups anywhere in the
 *     table below the claimant's maximum parallelism, if any: a database that went back may have
 *     forgotten its takeover of this range, but not of every range ({@link StartDecision}'s row 1c)
 */
@Internal
public record RangeRecord(
        Set<RangeOwner> owners,
        long committedByClaimantRun,
        long lastCommitted,
        long durableThrough,
        boolean claimantRunSuperseded,
        boolean hasRows,
        long newestDeletion,
        Set<RunLineage> committedLineages,
        OptionalLong savepointBranchErasedAt,
        long newestRepair,
        Map<String, Duration> leases,
        Optional<String> laterDeployment) {

    public RangeRecord {
        owners = Set.copyOf(owners);
        leases = Map.copyOf(leases);
        committedLineages = Set.copyOf(committedLineages);
        Objects.requireNonNull(savepointBranchErasedAt, "savepointBranchErasedAt");
        Objects.requireNonNull(laterDeployment, "laterDeployment");
    }

    /**
     * Whether a live row of the range was deleted after barrier {@code checkpointId} reached its
     * writer: the incremental flush from {@code checkpointId} cannot see such a deletion.
     */
    public boolean deletedSince(long checkpointId) {
        return newestDeletion >= checkpointId;
    }

    /**
     * Whether the table holds every write before barrier {@code c}, of {@code c}'s branch: every
     * key group proves the barrier durable, the restored savepoint's branch was not erased by its
     * run, and no repair rewrote the range at a later checkpoint. Otherwise the restore repairs
     * from state.
     */
    public boolean provesWritesBefore(long c) {
        return durableThrough >= c && savepointBranchErasedAt.isEmpty() && newestRepair <= c;
    }

    /**
     * The oldest checkpoint restored by an owner of the range that never passed barrier {@code c},
     * or suspected by one ({@link RangeOwner#suspectFrom}); {@code c} if none: such an owner is
     * outside {@code c}'s lineage. Checkpoint {@code c} completed, so the range's owner then passed
     * its barrier, and every later owner restored {@code c} or a later checkpoint; only a database
     * that went back in time, forgetting the fence, lets an older attempt take the range after
     * that. A takeover that displaced such an owner and died before its restore flush ended keeps
     * the suspicion in its own fence row.
     */
    public long outsideTheLineageFrom(long c) {
        long from = c;
        for (RangeOwner owner : owners) {
            if (owner.lastBarrier() < c && owner.restoredCheckpoint() >= 0) {
                from = Math.min(from, owner.restoredCheckpoint());
            }
            from = Math.min(from, owner.suspectFrom());
        }
        return from;
    }

    /**
     * A run other than {@code run} that still holds the range: it has not closed, and was seen
     * within {@code lease}.
     */
    public Optional<String> heldByAnotherRun(String run, Duration lease) {
        return leases.entrySet().stream()
                .filter(e -> !e.getKey().equals(run) && e.getValue().compareTo(lease) < 0)
                .map(Map.Entry::getKey)
                .sorted()
                .findFirst();
    }

    /** The runs that own key groups of the range. */
    public Set<String> ownerRuns() {
        return owners.stream()
                .map(owner -> owner.id().run())
                .collect(Collectors.toUnmodifiableSet());
    }
}
