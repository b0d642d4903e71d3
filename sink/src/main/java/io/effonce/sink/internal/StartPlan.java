package io.effonce.sink.internal;

import java.util.OptionalLong;

/**
 * How one sink subtask attempt starts, decided once, inside its takeover transaction, on what the
 * database holds for its range ({@link #of}); {@link StartProtocol} carries it out and derives
 * nothing. Each case is a row of {@link StartDecision}'s table; a restore carries everything its
 * flush and reconcile need ({@link Restore}).
 */
sealed interface StartPlan {

    /**
     * What the takeover does for this plan: a refused plan writes nothing; a restore the range does
     * not prove revokes the proof as it takes the range ({@link
     * TakeoverTerms#TAKE_REVOKING_PROOF}).
     */
    default TakeoverTerms terms() {
        if (this instanceof Refuse || this instanceof AwaitFirstBarrier) {
            return TakeoverTerms.LEAVE;
        }
        return this instanceof Restore restore && restore.repair()
                ? TakeoverTerms.TAKE_REVOKING_PROOF
                : TakeoverTerms.TAKE;
    }

    /** Rows 1–3, 3a, 5a and 8: nothing is written; {@code why} names the row. */
    record Refuse(StartDecision why) implements StartPlan {}

    /** Row 3b: nothing yet; the claim is made again at the attempt's first barrier. */
    record AwaitFirstBarrier() implements StartPlan {}

    /** Row 4: the claimant restored a checkpoint. */
    record Restore(
            long checkpoint,
            FlushPlan flush,
            StagedDiscard discard,
            boolean repair,
            FullFlushReason reason,
            OptionalLong savepointBranchErasedAt)
            implements StartPlan {

        /**
         * A restaging flush writes what the commit of the checkpoint moves into the committed
         * table, so the commit comes after it; every other flush reads the committed table for
         * final values state no longer retains, so the commit comes first.
         */
        boolean commitsAfterTheFlush() {
            return flush.restage();
        }
    }

    /** Row 5: a flush from "checkpoint 0" with empty state, then the reset done again. */
    record FlushErasedRun() implements StartPlan {}

    /** Row 6: take; what an earlier run left of progress goes. */
    record Begin() implements StartPlan {}

    /** Row 7: take and delete the range's rows ({@code sink.reset-on-fresh-start}). */
    record Reset() implements StartPlan {}

    /**
     * What the restore flush from {@code checkpoint} does ({@link RestoreFlush}).
     *
     * @param mode every key of restored state, or only what changed since the checkpoint
     * @param restage stage every key it sets at the checkpoint too, to rewrite the committed table
     * @param suspectFrom below the checkpoint: the oldest tag an attempt outside its lineage wrote
     * @param forkFrom below the checkpoint: where a run whose progress the database holds parted
     */
    record FlushPlan(
            long checkpoint,
            RestoreFlush.Mode mode,
            boolean restage,
            long suspectFrom,
            long forkFrom) {

        public FlushPlan {
            if (restage && mode != RestoreFlush.Mode.FULL) {
                throw new IllegalArgumentException(
                        "Only a full flush rewrites the committed table");
            }
        }

        /** The flush after a run that completed no checkpoint: its rows from "checkpoint 0". */
        static FlushPlan ofErasedRun() {
            return new FlushPlan(0L, RestoreFlush.Mode.INCREMENTAL, false, 0L, 0L);
        }
    }

    /** Why a restore's flush is a full one. */
    enum FullFlushReason {
        /** Incremental: the range proves every write before the barrier, and none was deleted. */
        NONE("the range proves every write before its barrier"),
        /** {@code sink.restore-flush} FULL. */
        BY_OPTION("sink.restore-flush is FULL"),
        /** The range does not prove every write before the barrier of its branch. */
        UNPROVEN(
                "but the range does not prove that it holds every write before its barrier, of its"
                        + " branch (a new table, a database that lost writes, a savepoint's branch"
                        + " erased, a newer repair, a proof the writer found false): the committed"
                        + " table is rewritten from state too"),
        /** A live row of the range was deleted after the barrier: a deletion leaves no tag. */
        DELETED_SINCE("and live rows of the range were deleted after it, which leaves no tag");

        private final String why;

        FullFlushReason(String why) {
            this.why = why;
        }

        /** Why, for the log. */
        String why() {
            return why;
        }
    }

    /** The plan for {@code claim} on what its takeover read: the one decision of its start. */
    static StartPlan of(Claim claim, RangeRecord found, StartRules rules) {
        StartDecision decision = StartDecision.decide(claim, found, rules);
        return switch (decision) {
            case REFUSE_STALE, REFUSE_RESCALE_IN_RUN, REFUSE_FRESH_START, REFUSE_RANGE_HELD ->
                    new Refuse(decision);
            case AWAIT_FIRST_BARRIER -> new AwaitFirstBarrier();
            case FLUSH_RESTORED -> RestorePlanner.plan(claim, found, rules.alwaysFullFlush());
            case FLUSH_ERASED_RUN -> new FlushErasedRun();
            case BEGIN -> new Begin();
            case RESET -> new Reset();
        };
    }
}
