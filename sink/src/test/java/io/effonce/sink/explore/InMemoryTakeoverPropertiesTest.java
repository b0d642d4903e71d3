package io.effonce.sink.explore;

import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import io.effonce.testing.jqwik.SoakTries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The takeover explored on the in-memory store, which the start protocol's contract test holds to
 * the PostgreSQL store's behaviour: many histories, fast. {@code
 * -Deffonce.explore.unconditional=true} plays them with the takeover this project had before the
 * start protocol, to watch the property fail and shrink.
 */
class InMemoryTakeoverPropertiesTest {

    @Property(tries = 200)
    @SoakTries(400)
    void noPausedAttemptRollsTheTotalsBack(@ForAll("histories") Histories.History history) {
        Histories.check(new InMemoryStoreUnderTest(), history);
    }

    /** See {@link Histories#aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineage}. */
    @Example
    void aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineageHandsOnItsSuspicion() {
        Histories.check(
                new InMemoryStoreUnderTest(),
                Histories.aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineage());
    }

    /** See {@link Histories#aPartialRestoreNoticedByARestoreCutAfterItsTakeover}. */
    @Example
    void aRestoreCutAfterItsTakeoverLeavesThePartialRestoreItNoticedUnproven() {
        Histories.check(
                new InMemoryStoreUnderTest(),
                Histories.aPartialRestoreNoticedByARestoreCutAfterItsTakeover());
    }

    /** See {@link Histories#aFrozenAttemptOfACancelledDeploymentWakesOnARangeTheDatabaseForgot}. */
    @Example
    void aWokenAttemptOfAnEarlierDeploymentIsRefusedWhereTheDatabaseForgotTheLaterOne() {
        Histories.check(
                new InMemoryStoreUnderTest(),
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
                new InMemoryStoreUnderTest(),
                Histories
                        .aFrozenRestartOfACancelledDeploymentWakesOnItsOwnRangeTheDatabaseForgot());
    }

    /** See {@link Histories#aRescaleAfterAPartialRestoreDisplacesTheWriterThatLostWrites}. */
    @Example
    void aTakeoverThatDisplacesAWriterWithLostWritesLeavesItsOtherKeyGroupsUnproven() {
        Histories.check(
                new InMemoryStoreUnderTest(),
                Histories.aRescaleAfterAPartialRestoreDisplacesTheWriterThatLostWrites());
    }

    @Provide
    Arbitrary<Histories.History> histories() {
        return Histories.any();
    }
}
