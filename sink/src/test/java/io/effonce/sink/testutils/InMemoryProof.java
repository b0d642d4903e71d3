package io.effonce.sink.testutils;

import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.DeploymentOrder;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RunLineage;
import io.effonce.sink.testutils.InMemoryTable.ProgressRow;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What an {@link InMemoryTable}'s range proves about the writes before a barrier, by the rules of
 * PostgreSQL's {@code ProofRows} and {@code SavepointBarriers}: read, and marked by a takeover.
 */
final class InMemoryProof {

    private InMemoryProof() {}

    /** See {@code ProofRows.durableThrough}. */
    static long durableThrough(InMemoryTable<?, ?> table, KeyGroupSpan span, Claim claim) {
        if (writesLost(table, span)) {
            return 0;
        }
        long durableThrough = Long.MAX_VALUE;
        for (int g = span.first(); g <= span.last(); g++) {
            durableThrough =
                    Math.min(
                            durableThrough,
                            Math.max(
                                    committedProof(table, g, claim),
                                    barrierProof(table, g, claim)));
        }
        return durableThrough;
    }

    /** The rows and counts went back without the fence ({@code ProofRows.writesLost}). */
    private static boolean writesLost(InMemoryTable<?, ?> table, KeyGroupSpan span) {
        for (int g = span.first(); g <= span.last(); g++) {
            InMemoryTable.WriterMark mark = table.fenceWrites.get(g);
            if (mark != null
                    && table.writerCounts.getOrDefault(mark.writer(), -1L) < mark.writes()) {
                return true;
            }
        }
        return false;
    }

    private static long committedProof(InMemoryTable<?, ?> table, int g, Claim claim) {
        ProgressRow progress = table.progress.get(g);
        String committedRun = table.committedRuns.get(g);
        RunLineage committedLineage = table.committedLineages.get(g);
        boolean ofRestoredRun =
                (claim.restoredRun().isEmpty()
                                && (committedLineage == null
                                        || committedLineage.branches().isEmpty()))
                        || claim.restoredRun().equals(committedRun)
                        || claim.run().equals(committedRun);
        if (progress == null || !ofRestoredRun) {
            return 0;
        }
        return Math.min(
                Math.max(progress.checkpointId(), table.acknowledgedSavepoints.getOrDefault(g, 0L)),
                table.proofCaps.getOrDefault(g, Long.MAX_VALUE));
    }

    /**
     * A barrier the owner recorded after its start: not the restored checkpoint its takeover
     * recorded, and only of the run that took it or the claimant's run.
     */
    private static long barrierProof(InMemoryTable<?, ?> table, int g, Claim claim) {
        RangeOwner owner = table.fenceOwners.get(g);
        return owner != null
                        && owner.lastBarrier() > owner.restoredCheckpoint()
                        && ofClaimOrItsRestoredRun(owner.id().run(), claim)
                ? owner.lastBarrier()
                : 0;
    }

    /** See {@code SupersededRuns.laterDeployment}. */
    static Optional<String> laterDeployment(InMemoryTable<?, ?> table, Claim claim) {
        return table.fenceOwners.entrySet().stream()
                .filter(owner -> owner.getKey() < claim.maxParallelism())
                .map(owner -> owner.getValue().id().run())
                .filter(owner -> DeploymentOrder.later(owner, claim.run()))
                .findFirst();
    }

    /**
     * See {@code WriteCount.takenOver}: the counts of the writers a takeover of {@code span}
     * displaces go, and their other key groups' marks with them; where such a count fell short of a
     * mark (writes lost), that key group's proof is revoked first.
     */
    static void writersDisplaced(InMemoryTable<?, ?> table, KeyGroupSpan span) {
        Set<String> displaced = new HashSet<>();
        for (int g = span.first(); g <= span.last(); g++) {
            InMemoryTable.WriterMark mark = table.fenceWrites.get(g);
            if (mark != null) {
                displaced.add(mark.writer());
            }
        }
        for (int g : Set.copyOf(table.fenceWrites.keySet())) {
            InMemoryTable.WriterMark mark = table.fenceWrites.get(g);
            if (span.contains(g) || !displaced.contains(mark.writer())) {
                continue;
            }
            if (table.writerCounts.getOrDefault(mark.writer(), -1L) < mark.writes()) {
                revoke(table, new KeyGroupSpan(g, g));
            }
            table.fenceWrites.remove(g);
        }
        displaced.forEach(table.writerCounts::remove);
    }

    /** See {@code ProofRows.revoke}. */
    static void revoke(InMemoryTable<?, ?> table, KeyGroupSpan span) {
        for (int g = span.first(); g <= span.last(); g++) {
            if (table.progress.containsKey(g)) {
                table.proofCaps.put(g, 0L);
            }
            RangeOwner owner = table.fenceOwners.get(g);
            if (owner != null) {
                table.fenceOwners.put(g, owner.revoked());
            }
        }
    }

    /**
     * What a takeover marks: see {@code SavepointBarriers.takenBy} and {@code
     * ProofRows.capOtherRuns}.
     */
    static void takenBy(InMemoryTable<?, ?> table, KeyGroupSpan span, Claim claim) {
        long restored = claim.restoredOrZero();
        table.savepointBarriers
                .entrySet()
                .removeIf(
                        e ->
                                span.contains(e.getKey().keyGroup())
                                        && ofClaimOrItsRestoredRun(e.getKey().run(), claim)
                                        && e.getKey().savepoint() <= restored
                                        && e.getValue() == Long.MAX_VALUE);
        table.savepointBarriers.replaceAll(
                (barrier, erasedAt) ->
                        span.contains(barrier.keyGroup())
                                        && ofClaimOrItsRestoredRun(barrier.run(), claim)
                                        && barrier.savepoint() > restored
                                ? Math.min(erasedAt, restored)
                                : erasedAt);
        for (int g = span.first(); g <= span.last(); g++) {
            if (table.progress.containsKey(g) && !claim.run().equals(table.committedRuns.get(g))) {
                table.proofCaps.merge(g, restored, Math::min);
            }
        }
    }

    private static boolean ofClaimOrItsRestoredRun(String run, Claim claim) {
        return run.equals(claim.run()) || run.equals(claim.restoredRun());
    }

    /** See {@code ProofRows.newestRepair}. */
    static long newestRepair(InMemoryTable<?, ?> table, KeyGroupSpan span, Claim claim) {
        return table.repairs.entrySet().stream()
                .filter(e -> span.contains(e.getKey().keyGroup()))
                .filter(e -> ofClaimOrItsRestoredRun(e.getKey().run(), claim))
                .mapToLong(Map.Entry::getValue)
                .max()
                .orElse(0);
    }

    /** See {@code SavepointBarriers.erasedAt}: the savepoint barriers and the restart gaps. */
    static OptionalLong savepointBranchErasedAt(
            InMemoryTable<?, ?> table, KeyGroupSpan span, Claim claim) {
        if (claim.restoredCheckpoint().isEmpty() || claim.restoredRun().isEmpty()) {
            return OptionalLong.empty();
        }
        long savepoint = claim.restoredCheckpoint().getAsLong();
        long erasedAt = Long.MAX_VALUE;
        for (var e : table.savepointBarriers.entrySet()) {
            if (span.contains(e.getKey().keyGroup())
                    && e.getKey().run().equals(claim.restoredRun())
                    && e.getKey().savepoint() == savepoint) {
                erasedAt = Math.min(erasedAt, e.getValue());
            }
        }
        for (var e : table.restartGaps.entrySet()) {
            if (span.contains(e.getKey().keyGroup())
                    && e.getKey().run().equals(claim.restoredRun())
                    && e.getKey().restored() < savepoint
                    && e.getValue() > savepoint) {
                erasedAt = Math.min(erasedAt, e.getKey().restored());
            }
        }
        return erasedAt == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(erasedAt);
    }
}
