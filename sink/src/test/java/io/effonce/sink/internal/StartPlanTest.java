package io.effonce.sink.internal;

import static io.effonce.sink.internal.RestoreFlush.Mode.FULL;
import static io.effonce.sink.internal.RestoreFlush.Mode.INCREMENTAL;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.internal.StartPlan.FlushPlan;
import io.effonce.sink.internal.StartPlan.FullFlushReason;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The start as a plan, row for row with docs/flushable-sink.md's table "The start as a plan": what
 * the takeover reads, and the one plan it is taken for. A restore of checkpoint 10 throughout.
 */
class StartPlanTest {

    private static final String RUN = "job/run-1";
    private static final long C = 10;

    private static final Claim RESTORES_10 =
            new Claim(AttemptId.of(RUN, "sink (1/2)#1", 0, 2, 1), OptionalLong.of(C));

    /** A range of the claimant's run, proven through {@code durableThrough}. */
    private static RangeRecord range(
            Set<RangeOwner> owners,
            long lastCommitted,
            long durableThrough,
            long newestDeletion,
            OptionalLong erasedAt,
            long newestRepair) {
        return new RangeRecord(
                owners,
                Math.min(lastCommitted, C),
                lastCommitted,
                durableThrough,
                false,
                true,
                newestDeletion,
                Set.of(),
                erasedAt,
                newestRepair,
                Map.of(),
                Optional.empty());
    }

    private static RangeRecord proven() {
        return range(Set.of(), C, C, 0, OptionalLong.empty(), 0);
    }

    private static StartPlan.Restore restore(
            RestoreFlush.Mode mode,
            boolean restage,
            long suspectFrom,
            long forkFrom,
            long discardAfter,
            boolean repair,
            FullFlushReason reason,
            OptionalLong erasedAt) {
        return new StartPlan.Restore(
                C,
                new FlushPlan(C, mode, restage, suspectFrom, forkFrom),
                new StagedDiscard(C, discardAfter, List.of()),
                repair,
                reason,
                erasedAt);
    }

    static Stream<Arguments> restores() {
        OptionalLong none = OptionalLong.empty();
        RangeOwner cutBeforeItsBarrier =
                new RangeOwner(AttemptId.of("job/run-0", "sink#0", 0, 2, 0), 6, 6);
        return Stream.of(
                Arguments.of(
                        "4a proven, nothing deleted since: incremental, commit first",
                        proven(),
                        false,
                        restore(INCREMENTAL, false, C, C, C, false, FullFlushReason.NONE, none)),
                Arguments.of(
                        "4b sink.restore-flush FULL: full, the committed table trusted",
                        proven(),
                        true,
                        restore(FULL, false, C, C, C, false, FullFlushReason.BY_OPTION, none)),
                Arguments.of(
                        "4c a live row deleted after the barrier: full",
                        range(Set.of(), C, C, 12, none, 0),
                        false,
                        restore(FULL, false, C, C, C, false, FullFlushReason.DELETED_SINCE, none)),
                Arguments.of(
                        "4d ... and a later checkpoint committed the deletion: restaged",
                        range(Set.of(), 13, 13, 12, none, 0),
                        false,
                        restore(FULL, true, C, C, C, false, FullFlushReason.DELETED_SINCE, none)),
                Arguments.of(
                        "4e proven only through 9 (a lost notice, its first restore cut): repaired",
                        range(Set.of(), 9, 9, 0, none, 0),
                        false,
                        restore(FULL, true, C, C, C, true, FullFlushReason.UNPROVEN, none)),
                Arguments.of(
                        "4f ... and an owner restored 6 and never passed barrier 10: its tags go",
                        range(Set.of(cutBeforeItsBarrier), 9, 9, 0, none, 0),
                        false,
                        restore(FULL, true, 6, C, 6, true, FullFlushReason.UNPROVEN, none)),
                Arguments.of(
                        "4g a savepoint's branch erased at 8: the run's writes since are another's",
                        range(Set.of(), C, C, 0, OptionalLong.of(8), 0),
                        false,
                        restore(
                                FULL,
                                true,
                                C,
                                8,
                                8,
                                true,
                                FullFlushReason.UNPROVEN,
                                OptionalLong.of(8))),
                Arguments.of(
                        "4h a repair of checkpoint 11 is newer: the rows below hold 11's values",
                        range(Set.of(), C, C, 0, none, 11),
                        false,
                        restore(FULL, true, C, C, C, true, FullFlushReason.UNPROVEN, none)));
    }

    /**
     * 4i (docs/flushable-sink.md, "What a restore discards of the staged values"): a deployment of
     * run-0's checkpoint 10 after a fresh start took the range and was cut before it wrote. The
     * start is outside the lineage and suspected from 0; what run-0 staged from the first barrier
     * of the attempt that took 10 (a deletion before a lost notice) stays, anyone else's goes.
     */
    @Test
    void aRestoreKeepsWhatTheRunThatTookItsCheckpointStagedForItAndNothingElse() {
        RangeOwner freshStart = new RangeOwner(AttemptId.of("job/run-f", "sink#0", 0, 2, 0), 0, 0);
        RangeRecord found = range(Set.of(freshStart), 9, 9, 0, OptionalLong.empty(), 0);

        StagedDiscard discard = discardOf(deploysRun0s10(OptionalLong.of(1)), found);
        assertThat(discard)
                .isEqualTo(
                        new StagedDiscard(
                                C, 0, List.of(new StagedDiscard.LineageWindow("job/run-0", 0, C))));
        assertThat(discard.discards("job/run-0", C)).as("the lineage's deletion").isFalse();
        assertThat(discard.discards("job/run-f", 5)).as("the fresh start's").isTrue();
        assertThat(discard.discards(null, 5)).as("a row that names no run").isTrue();
        assertThat(discard.discards("job/run-0", C + 1)).as("after the checkpoint").isTrue();

        // The attempt that took 10 was a restart of run-0 that began at barrier 7: what run-0
        // staged below it, a database that went back may show again from a branch it erased.
        assertThat(discardOf(deploysRun0s10(OptionalLong.of(7)), found).lineage())
                .containsExactly(new StagedDiscard.LineageWindow("job/run-0", 6, C));
        // A state from before the record keeps nothing back: as before the rule.
        assertThat(discardOf(deploysRun0s10(OptionalLong.empty()), found))
                .isEqualTo(new StagedDiscard(C, 0, List.of()));
    }

    private static Claim deploysRun0s10(OptionalLong stagedFrom) {
        return new Claim(
                AttemptId.of(RUN, "sink (1/2)#0", 0, 2, 0),
                Claim.EVERY_KEY_GROUP,
                OptionalLong.of(C),
                OptionalLong.empty(),
                RunLineage.of(List.of("0 job/run-0")),
                stagedFrom);
    }

    private static StagedDiscard discardOf(Claim claim, RangeRecord found) {
        return ((StartPlan.Restore) StartPlan.of(claim, found, StartRules.DEFAULTS)).discard();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("restores")
    void row4EveryRestoreIsOnePlan(
            String row, RangeRecord found, boolean alwaysFull, StartPlan.Restore expected) {
        StartPlan plan =
                StartPlan.of(
                        RESTORES_10, found, StartRules.DEFAULTS.withAlwaysFullFlush(alwaysFull));
        assertThat(plan).as(row).isEqualTo(expected);
        assertThat(plan.terms())
                .as("an unproven restore revokes the range's proof as it takes the range")
                .isEqualTo(
                        expected.repair() ? TakeoverTerms.TAKE_REVOKING_PROOF : TakeoverTerms.TAKE);
        assertThat(((StartPlan.Restore) plan).commitsAfterTheFlush())
                .as("a restaging flush comes before the commit, every other after it")
                .isEqualTo(expected.flush().restage());
    }

    @Test
    void theOtherRowsAreCasesOfTheirOwnAndOnlyRefusalsAndWaitingTakeNothing() {
        Claim fresh = new Claim(AttemptId.of(RUN, "sink (1/2)#0", 0, 2, 0), OptionalLong.empty());
        RangeRecord othersRows =
                new RangeRecord(
                        Set.of(new RangeOwner(AttemptId.of("job/run-0", "sink#0", 0, 2, 0), 0)),
                        0,
                        3,
                        3,
                        false,
                        true,
                        0,
                        Set.of(),
                        OptionalLong.empty(),
                        0,
                        Map.of(),
                        Optional.empty());
        StartPlan refused = StartPlan.of(fresh, othersRows, StartRules.DEFAULTS);
        assertThat(refused).isEqualTo(new StartPlan.Refuse(StartDecision.REFUSE_FRESH_START));
        assertThat(refused.terms()).isEqualTo(TakeoverTerms.LEAVE);
        assertThat(StartPlan.of(fresh, othersRows, StartRules.DEFAULTS.withResetOnFreshStart(true)))
                .isEqualTo(new StartPlan.Reset());
        assertThat(new StartPlan.AwaitFirstBarrier().terms()).isEqualTo(TakeoverTerms.LEAVE);
        assertThat(new StartPlan.Reset().terms()).isEqualTo(TakeoverTerms.TAKE);
    }
}
