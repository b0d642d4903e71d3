package io.effonce.sink.explore;

import io.effonce.sink.testutils.PostgresStoreUnderTest;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.jqwik.SoakTries;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The takeover explored on the real PostgreSQL store: every history starts from empty tables, runs
 * real transactions with the fence checks, the conditional takeover and the commits, and ends
 * compared with the model, on a database of its own ({@link ExplorationDatabase}).
 */
class PostgresTakeoverPropertiesITCase {

    private static ExplorationDatabase database;
    private static PostgresEndpoint db;

    @BeforeContainer
    static void startPostgres() {
        database = ExplorationDatabase.start("effonce_explore");
        db = database.endpoint();
    }

    @AfterContainer
    static void stopPostgres() {
        database.close();
    }

    // Shrinks on the test's thread (FULL has no time bound): a bounded shrink that runs out goes
    // on in the background, playing histories against this class's database beside the next test.
    @Property(tries = 50, shrinking = ShrinkingMode.FULL)
    @SoakTries(100)
    void noPausedAttemptRollsTheTotalsBack(@ForAll("histories") Histories.History history) {
        Histories.check(new PostgresStoreUnderTest(db), history);
    }

    /**
     * The sink's database goes back (a standby promoted, a backup restored) at least once: a live
     * attempt notices at its next write, Flink restores, and the tables end equal to the model.
     */
    // Shrinks on the test's thread (FULL has no time bound): a bounded shrink that runs out goes
    // on in the background, playing histories against this class's database beside the next test.
    @Property(tries = 20, shrinking = ShrinkingMode.FULL)
    @SoakTries(40)
    void aDatabaseThatWentBackIsRepairedByTheRestore(
            @ForAll("goingBack") Histories.History history) {
        Histories.check(new PostgresStoreUnderTest(db), history);
    }

    /**
     * A deployment's attempt freezes before its takeover; the database goes back to before that
     * deployment was numbered, and an operator deploys again. Numbered by the sequence alone, the
     * new deployment would carry the frozen one's number again: the woken attempt takes its key
     * groups, supersedes it, and every restart of the deployment that runs is refused for good.
     * Numbers raised to the database's clock keep it the earlier one.
     */
    @Example
    void aFrozenAttemptOfADeploymentTheDatabaseForgotStaysTheEarlier() {
        Histories.check(
                new PostgresStoreUnderTest(db),
                new Histories.History(
                        1,
                        List.of(
                                new Step.CopyDatabase(),
                                new Step.FreshStartWithReset(0, false, 1),
                                new Step.JobManagerFailover(0, true),
                                new Step.DatabaseGoesBack(0),
                                new Step.FreshStartWithReset(0, false, 1),
                                new Step.Open(0),
                                new Step.Upsert(0, 5))));
    }

    /**
     * Attempt 0 freezes before its takeover; attempt 1 takes the range and checkpoint 1 completes
     * with nothing in state; the database goes back to before attempt 1's takeover. Attempt 0
     * wakes, finds the range free, takes it and writes a total of its own, tagged 0; attempt 1
     * fails at its next write and attempt 2 restores checkpoint 1. Its flush reads tags from 1 on
     * and would keep the woken attempt's total for good; the owner it found never passed barrier 1,
     * so the flush also reads that owner's tags, and deletes what neither state nor the committed
     * table holds.
     */
    @Example
    void whatAnAttemptOutsideTheLineageWroteAfterTheDatabaseForgotTheFenceGoes() {
        Histories.check(
                new PostgresStoreUnderTest(db),
                new Histories.History(
                        1,
                        List.of(
                                new Step.Fail(0, true),
                                new Step.CopyDatabase(),
                                new Step.Open(0),
                                new Step.Barrier(),
                                new Step.Complete(true),
                                new Step.DatabaseGoesBack(1))));
    }

    /** See {@link Histories#aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineage}. */
    @Example
    void aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineageHandsOnItsSuspicion() {
        Histories.check(
                new PostgresStoreUnderTest(db),
                Histories.aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineage());
    }

    /** See {@link Histories#aPartialRestoreNoticedByARestoreCutAfterItsTakeover}. */
    @Example
    void aRestoreCutAfterItsTakeoverLeavesThePartialRestoreItNoticedUnproven() {
        Histories.check(
                new PostgresStoreUnderTest(db),
                Histories.aPartialRestoreNoticedByARestoreCutAfterItsTakeover());
    }

    /** See {@link Histories#aFrozenAttemptOfACancelledDeploymentWakesOnARangeTheDatabaseForgot}. */
    @Example
    void aWokenAttemptOfAnEarlierDeploymentIsRefusedWhereTheDatabaseForgotTheLaterOne() {
        Histories.check(
                new PostgresStoreUnderTest(db),
                Histories.aFrozenAttemptOfACancelledDeploymentWakesOnARangeTheDatabaseForgot());
    }

    /**
     * See {@link
     * Histories#aFrozenRestartOfACancelledDeploymentWakesOnItsOwnRangeTheDatabaseForgot}.
     */
    @Example
    void
            aWokenRestartOfAnEarlierDeploymentIsRefusedOnItsOwnRangeWhereTheDatabaseForgotTheLaterOne() {
        Histories.check(
                new PostgresStoreUnderTest(db),
                Histories
                        .aFrozenRestartOfACancelledDeploymentWakesOnItsOwnRangeTheDatabaseForgot());
    }

    /** See {@link Histories#aRescaleAfterAPartialRestoreDisplacesTheWriterThatLostWrites}. */
    @Example
    void aTakeoverThatDisplacesAWriterWithLostWritesLeavesItsOtherKeyGroupsUnproven() {
        Histories.check(
                new PostgresStoreUnderTest(db),
                Histories.aRescaleAfterAPartialRestoreDisplacesTheWriterThatLostWrites());
    }

    @Provide
    Arbitrary<Histories.History> histories() {
        return Histories.any();
    }

    @Provide
    Arbitrary<Histories.History> goingBack() {
        return Histories.goingBack();
    }
}
