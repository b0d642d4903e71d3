package io.effonce.sink.internal;

import java.util.List;
import java.util.OptionalLong;

/**
 * Row 4 of the start table as data: what a restore from checkpoint {@code c} must flush, discard
 * and repair, from what its takeover read (docs/flushable-sink.md, "The start as a plan").
 */
final class RestorePlanner {

    private RestorePlanner() {}

    static StartPlan.Restore plan(Claim claim, RangeRecord found, boolean alwaysFullFlush) {
        long c = claim.restoredCheckpoint().getAsLong();
        OptionalLong erasedAt = found.savepointBranchErasedAt();
        // Unproven, the committed table may lack what was committed before barrier c too (lost
        // with the database's writes, or another branch's): rewritten from state. So is it when a
        // key was deleted after barrier c and a later checkpoint committed the deletion, leaving
        // no row for the roll-back to find.
        boolean unproven = !found.provesWritesBefore(c);
        boolean restage = unproven || (found.deletedSince(c) && found.lastCommitted() > c);
        long suspectFrom = unproven ? found.outsideTheLineageFrom(c) : c;
        // The database holds the progress of a run of another lineage (a copy from before a
        // rollback, or from an abandoned branch): it wrote after the fork, and nothing in the
        // tables says which rows.
        long forkFrom = unproven ? Math.min(forkFrom(claim, found, c), erasedAt.orElse(c)) : c;
        StartPlan.FullFlushReason reason = fullFlushReason(c, found, alwaysFullFlush);
        RestoreFlush.Mode mode =
                reason == StartPlan.FullFlushReason.NONE
                        ? RestoreFlush.Mode.INCREMENTAL
                        : RestoreFlush.Mode.FULL;
        return new StartPlan.Restore(
                c,
                new StartPlan.FlushPlan(c, mode, restage, suspectFrom, forkFrom),
                // What an attempt outside c's lineage staged goes too (it never completed a
                // checkpoint); the flush stages every key of state at c again, but not a deletion
                // state forgot, which only the lineage's own staged row still holds.
                new StagedDiscard(
                        c, Math.min(c, Math.min(suspectFrom, forkFrom)), lineageWindows(claim, c)),
                unproven,
                reason,
                erasedAt);
    }

    /**
     * What the run that took checkpoint {@code c} staged for it: from the newest first barrier of
     * the attempts that took it through {@code c} ({@link Claim#restoredStagedFrom}). Those
     * attempts discarded what earlier attempts of the run staged above what they restored, and a
     * later attempt stages above {@code c}: only a database that went back shows rows of the run
     * below that barrier again, maybe of an erased branch, and they are not taken for the
     * lineage's. The lineage's earlier runs: what they staged through the checkpoint the next run
     * restored was committed by that run's start.
     */
    static List<StagedDiscard.LineageWindow> lineageWindows(Claim claim, long c) {
        if (claim.restoredStagedFrom().isEmpty() || claim.restoredRun().isEmpty()) {
            return List.of();
        }
        long after = claim.restoredStagedFrom().getAsLong() - 1;
        return after < c
                ? List.of(new StagedDiscard.LineageWindow(claim.restoredRun(), after, c))
                : List.of();
    }

    /**
     * Incremental when the range proves every write before barrier {@code c} durable and of this
     * branch ({@link RangeRecord#provesWritesBefore}): the table then holds them (see {@link
     * RestoreFlush}). Full when the range proves less, or when a live row was deleted after the
     * barrier: a deletion leaves no tag.
     */
    private static StartPlan.FullFlushReason fullFlushReason(
            long c, RangeRecord found, boolean alwaysFullFlush) {
        if (alwaysFullFlush) {
            return StartPlan.FullFlushReason.BY_OPTION;
        }
        if (!found.provesWritesBefore(c)) {
            return StartPlan.FullFlushReason.UNPROVEN;
        }
        if (found.deletedSince(c)) {
            return StartPlan.FullFlushReason.DELETED_SINCE;
        }
        return StartPlan.FullFlushReason.NONE;
    }

    /**
     * The oldest checkpoint from which a run whose commit the range holds wrote outside the claim's
     * lineage; {@code c} when none did (or the lineages are not known).
     */
    private static long forkFrom(Claim claim, RangeRecord found, long c) {
        long from = c;
        for (RunLineage other : found.committedLineages()) {
            from = Math.min(from, claim.lineage().forkFrom(other).orElse(c));
        }
        return from;
    }
}
