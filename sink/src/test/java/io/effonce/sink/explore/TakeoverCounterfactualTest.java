package io.effonce.sink.explore;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.explore.Step.Barrier;
import io.effonce.sink.explore.Step.Complete;
import io.effonce.sink.explore.Step.Fail;
import io.effonce.sink.explore.Step.Open;
import io.effonce.sink.explore.Step.Retire;
import io.effonce.sink.explore.Step.Upsert;
import io.effonce.sink.explore.Step.Wake;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import io.effonce.sink.testutils.DelegatingStore;
import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The histories the exploration shrank to when played with the takeover from before the start
 * protocol (the last caller won the fence): each gives a wrong total there, and the right one with
 * the protocol.
 */
class TakeoverCounterfactualTest {

    /**
     * The property's shrunk failure, one step: attempt 0 freezes; when the history settles the next
     * attempt opens and attempt 0 wakes up after it.
     */
    private static final List<Step> SHRUNK = List.of(new Fail(0, true));

    /**
     * The trace: attempt 1 restored checkpoint 1 and froze before asking for its range;
     * attempt 2 ran on, k0 grew to 200 and its day closed, checkpoints 2 and 3 completed.
     */
    private static final List<Step> RETIRED_KEY =
            List.of(
                    new Open(0),
                    new Upsert(0, 100),
                    new Barrier(),
                    new Complete(true),
                    new Fail(0, false),
                    new Fail(0, true),
                    new Open(0),
                    new Upsert(0, 100),
                    new Barrier(),
                    new Complete(true),
                    new Retire(0),
                    new Barrier(),
                    new Complete(true),
                    new Wake(0));

    @Test
    void aStaleAttemptThatTakesTheRangeBackLeavesATotalNoFlushEverLooksAt() {
        assertThat(play(SHRUNK, true)).isEqualTo("live table {k0=999999} != lineage {}");
        assertThat(play(SHRUNK, false)).isNull();
    }

    @Test
    void aStaleFlushPutsARetiredDaysTotalBackForGood() {
        assertThat(play(RETIRED_KEY, true))
                .isEqualTo("committed value of k0 stepped back from checkpoint 2 to 1");
        assertThat(play(RETIRED_KEY, false)).isNull();
    }

    /**
     * Without the suspicion a takeover hands on in its fence row ({@code RangeOwner#suspectFrom}),
     * the attempt after a cut restore reads tags from the restored checkpoint on only, and the
     * total the woken attempt wrote outside the lineage stays.
     */
    @Test
    void aCutRestoreThatHandsOnNoSuspicionLeavesAnotherLineagesTotal() {
        Histories.History history = Histories.aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineage();
        assertThat(
                        new TakeoverExplorer<>(new InMemoryStoreUnderTest(), false)
                                .withRuleOff(
                                        store ->
                                                new ForgettingTakeover(
                                                        store,
                                                        TakeoverCounterfactualTest::unsuspecting))
                                .play(history.parallelism(), history.steps()))
                .isEqualTo("live table {k0=999999} != lineage {}");
        assertThat(play(history.steps(), false)).isNull();
    }

    /**
     * Without the revocation a takeover for an unproven restore carries out ({@link
     * TakeoverTerms#TAKE_REVOKING_PROOF}), the restore after one cut right after its takeover finds
     * the partially restored range proven, flushes incrementally and repairs nothing.
     */
    @Test
    void aCutRestoreThatLeavesTheProofStandingLeavesAPartialRestoreUnrepaired() {
        Histories.History history = Histories.aPartialRestoreNoticedByARestoreCutAfterItsTakeover();
        assertThat(
                        new TakeoverExplorer<>(new InMemoryStoreUnderTest(), false)
                                .withRuleOff(KeepingProofs::new)
                                .play(history.parallelism(), history.steps()))
                .isEqualTo("live table {} != lineage {k0=10, k1=10}");
        assertThat(play(history.steps(), false)).isNull();
    }

    /**
     * Without row 1c (a later deployment's key groups anywhere in the table make an earlier
     * deployment's attempt stale), an attempt of a cancelled deployment that wakes after the
     * database forgot the later one's takeover of its range writes there: whether it would start
     * without state on a range its run does not own, or restart on its own run's range.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("wokenAttemptsOfACancelledDeployment")
    void withoutRow1cAWokenAttemptOfACancelledDeploymentWritesWhereTheDatabaseForgot(
            String name, Histories.History history) {
        assertThat(
                        new TakeoverExplorer<>(new InMemoryStoreUnderTest(), false)
                                .withRuleOff(
                                        store ->
                                                new ForgettingTakeover(
                                                        store, FoundRanges::withoutLaterDeployment))
                                .play(history.parallelism(), history.steps()))
                .isEqualTo("live table {k0=999999} != lineage {}");
        assertThat(
                        new TakeoverExplorer<>(new InMemoryStoreUnderTest(), false)
                                .play(history.parallelism(), history.steps()))
                .isNull();
    }

    static Stream<Arguments> wokenAttemptsOfACancelledDeployment() {
        return Stream.of(
                Arguments.of(
                        "a start without state on a range its run does not own",
                        Histories
                                .aFrozenAttemptOfACancelledDeploymentWakesOnARangeTheDatabaseForgot()),
                Arguments.of(
                        "a restart on its own run's range",
                        Histories
                                .aFrozenRestartOfACancelledDeploymentWakesOnItsOwnRangeTheDatabaseForgot()));
    }

    private static final class KeepingProofs extends DelegatingStore<String, Long> {
        KeepingProofs(SinkStore<String, Long> store) {
            super(store);
        }

        @Override
        public Takeover takeOwnership(
                KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
            return super.takeOwnership(
                    span,
                    claim,
                    found -> terms.apply(found).takes() ? TakeoverTerms.TAKE : TakeoverTerms.LEAVE);
        }
    }

    /** The rule off: the takeover reads no owner's suspicion. */
    private static RangeRecord unsuspecting(RangeRecord f) {
        return FoundRanges.with(
                f,
                f.owners().stream()
                        .map(o -> new RangeOwner(o.id(), o.restoredCheckpoint(), o.lastBarrier()))
                        .collect(Collectors.toSet()),
                f.leases());
    }

    private static String play(List<Step> steps, boolean unconditional) {
        return new TakeoverExplorer<>(new InMemoryStoreUnderTest(), unconditional).play(1, steps);
    }
}
