package io.effonce.sink.explore;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.testutils.StoreUnderTest;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.statistics.Statistics;

/** The histories both explorations draw, and what they report about them. */
final class Histories {

    private Histories() {}

    /** A job's first parallelism (1 or 2) and what happens to it. */
    record History(int parallelism, List<Step> steps) {}

    /**
     * A fresh attempt froze before its takeover, woke after its run restarted, took the range and
     * wrote a total no lineage holds (tagged 0); the database was copied then. The next attempt
     * took the range over, checkpoint 1 completed, and the database went back to the copy: the
     * fence names the woken attempt again. The live attempt notices; the first attempt that
     * restores checkpoint 1 takes the range (it suspects tags from 0 on: its owner never passed
     * barrier 1) and dies at its next store call; the attempt after it finds only that one as
     * owner. Unless the first handed its suspicion on in its fence row, the second's flush reads
     * tags from 1 on and keeps the woken attempt's total for good (a sampled history's seed,
     * 9182970688266125865).
     */
    static History aRestoreCutAfterItDisplacedAnOwnerOutsideTheLineage() {
        return new History(
                1,
                List.of(
                        new Step.Fail(0, true),
                        new Step.Fail(0, false),
                        new Step.Wake(0),
                        new Step.CopyDatabase(),
                        new Step.Open(0),
                        new Step.Barrier(),
                        new Step.Complete(true),
                        new Step.DatabaseGoesBack(1),
                        new Step.Upsert(1, 49),
                        new Step.OpenDies(0, 1)));
    }

    /**
     * As {@link #aFrozenAttemptOfACancelledDeploymentWakesOnARangeTheDatabaseForgot}, but the
     * frozen attempt of the first deployment is a restart of a subtask whose run owns its range
     * (row 5): the range it wakes on is its own run's again once the database forgot the later
     * deployment's takeover, so row 1c must ask every claim, not only a start without state on a
     * range its run does not own (found by review, 2026-12-07).
     */
    static History aFrozenRestartOfACancelledDeploymentWakesOnItsOwnRangeTheDatabaseForgot() {
        List<Step> steps = new ArrayList<>(List.of(new Step.Open(1), new Step.Fail(1, false)));
        steps.addAll(aFrozenAttemptOfACancelledDeploymentWakesOnARangeTheDatabaseForgot().steps());
        return new History(2, steps);
    }

    /**
     * The sink's rows and writers go back to a copy taken before anything was written, its progress
     * and fence do not (an operator's partial restore); the writer's count is short of what its
     * fence row recorded, so the restore of checkpoint 1 is unproven. Its first attempt dies right
     * after its takeover, which starts the writer's count anew: unless the takeover revoked the
     * range's proof, the next attempt found checkpoint 1 proven, flushed incrementally and left the
     * live table empty (a sampled history's seed, -5163878570563584159).
     */
    static History aPartialRestoreNoticedByARestoreCutAfterItsTakeover() {
        return new History(1, afterAPartialRestore(2, new Step.OpenDies(0, 1)));
    }

    /**
     * {@code keys} keys written and committed at checkpoint 1 by one subtask, then the rows and
     * writers put back to a copy from before, the progress and fence not; then {@code next}.
     */
    private static List<Step> afterAPartialRestore(int keys, Step... next) {
        List<Step> steps = new ArrayList<>(List.of(new Step.CopyDatabase(), new Step.Open(0)));
        for (int key = 0; key < keys; key++) {
            steps.add(new Step.Upsert(key, 10));
        }
        steps.addAll(
                List.of(new Step.Barrier(), new Step.Complete(true), new Step.TablesGoBack(1)));
        steps.addAll(List.of(next));
        return steps;
    }

    /**
     * An operator's fresh start with the reset dies after its takeover; the JobManager fails over
     * while the restarted attempt is frozen, and the new leader's attempt finds the range held by
     * that attempt of another JobManager: it starts, and carries out the reset, at its first
     * barrier. The committed table empties there, as the operator asked (a sampled history's seed,
     * -6611027471714742897, that the model once took for a committed value stepping back).
     */
    static History aResetCutThenCarriedOutAtTheNewLeadersFirstBarrier() {
        return new History(
                1,
                List.of(
                        new Step.Open(0),
                        new Step.Upsert(0, 10),
                        new Step.Upsert(1, 10),
                        new Step.Barrier(),
                        new Step.Complete(true),
                        new Step.Delete(0),
                        new Step.FreshStartWithReset(0, true, 1),
                        new Step.JobManagerFailover(0, true),
                        new Step.Open(0),
                        new Step.Barrier()));
    }

    /**
     * An attempt of the first deployment freezes before its takeover; an operator deploys a fresh
     * start with the reset, whose subtask 0 takes its range and dies; the database is copied; the
     * new deployment's subtask 1 takes its range, a JobManager failover leaves that attempt frozen
     * and its successor waiting for its first barrier; the database goes back to the copy, which
     * forgot subtask 1's takeover but not subtask 0's. The first deployment's attempt wakes and
     * finds its range empty: unless a later deployment owning key groups anywhere in the table
     * makes its start without state stale (row 1c), it began there, wrote a total no lineage holds
     * and held the range against the new deployment (a sampled history, the soak's tries,
     * 2026-12-07).
     */
    static History aFrozenAttemptOfACancelledDeploymentWakesOnARangeTheDatabaseForgot() {
        return new History(
                2,
                List.of(
                        new Step.Fail(1, true),
                        new Step.Upsert(0, 1),
                        new Step.FreshStartWithReset(0, true, 2),
                        new Step.CopyDatabase(),
                        new Step.Open(1),
                        new Step.JobManagerFailover(1, true),
                        new Step.Open(1),
                        new Step.DatabaseGoesBack(0)));
    }

    /**
     * The sink's rows and writers go back to a copy taken before anything was written, its progress
     * and fence do not; an operator redeploys checkpoint 1 at parallelism 2. Subtask 0's takeover
     * displaces the writer that held the whole range: unless it revokes the proof of the key groups
     * outside its span where that writer's count falls short, dropping the writer's count erases
     * the evidence, and subtask 1 finds checkpoint 1 proven and flushes incrementally (found by
     * review, 2026-12-07, on PostgreSQL's store; the in-memory one drops a displaced writer's marks
     * and count the same way since).
     */
    static History aRescaleAfterAPartialRestoreDisplacesTheWriterThatLostWrites() {
        return new History(
                1,
                afterAPartialRestore(
                        4, new Step.OlderSavepoint(0, 2), new Step.Open(0), new Step.Open(1)));
    }

    static Arbitrary<History> any() {
        return Combinators.combine(
                        Arbitraries.integers().between(1, 2),
                        Step.any()
                                .list()
                                .ofMinSize(1)
                                .ofMaxSize(40)
                                .filter(World::noticesBeforeTheRetentionRunsOut))
                .as(History::new);
    }

    /**
     * Histories in which the sink's database never goes back: with {@code sink.retired-retention} 0
     * a database that goes back loses final rows state no longer holds (a documented limit, the
     * recount's to repair), so only these hold the tables to the model without any retention.
     */
    static Arbitrary<History> withoutTheDatabaseGoingBack() {
        return Combinators.combine(
                        Arbitraries.integers().between(1, 2),
                        Step.any()
                                .filter(step -> !World.goesBack(step))
                                .list()
                                .ofMinSize(1)
                                .ofMaxSize(40))
                .as(History::new);
    }

    /**
     * Histories in which the sink's database goes back in time at least once, past writes of the
     * attempts live then: drawn steps, a copy kept, the subtasks open, more drawn steps, a
     * checkpoint taken and completed, the database put back, drawn steps again.
     */
    static Arbitrary<History> goingBack() {
        Arbitrary<List<Step>> some = Step.any().list().ofMaxSize(12);
        return Combinators.combine(
                        Arbitraries.integers().between(1, 2),
                        some,
                        some,
                        some,
                        Arbitraries.integers().between(1, 2))
                .as(
                        (parallelism, before, during, after, back) -> {
                            List<Step> steps = new ArrayList<>(before);
                            steps.add(new Step.CopyDatabase());
                            steps.add(new Step.Open(0));
                            steps.add(new Step.Open(1));
                            steps.addAll(during);
                            steps.add(new Step.Barrier());
                            steps.add(new Step.Complete(true));
                            steps.add(new Step.DatabaseGoesBack(back));
                            steps.addAll(after);
                            return new History(parallelism, steps);
                        })
                .filter(history -> World.noticesBeforeTheRetentionRunsOut(history.steps()));
    }

    /**
     * Histories in which keys are deleted after a checkpoint whose notice every subtask got: drawn
     * steps, the subtasks open, every key set, a checkpoint taken and completed, two drawn keys
     * deleted, drawn steps again (a crash among them restores that checkpoint, and only the record
     * of deletions keeps its flush from being incremental).
     */
    static Arbitrary<History> deletingAfterACompletedCheckpoint() {
        Arbitrary<List<Step>> some = Step.any().list().ofMaxSize(12);
        Arbitrary<Integer> key = Arbitraries.integers().between(0, Step.KEYS - 1);
        return Combinators.combine(Arbitraries.integers().between(1, 2), some, key, key, some)
                .as(
                        (parallelism, before, first, second, after) -> {
                            List<Step> steps = new ArrayList<>(before);
                            steps.add(new Step.Open(0));
                            steps.add(new Step.Open(1));
                            for (int k = 0; k < Step.KEYS; k++) {
                                steps.add(new Step.Upsert(k, 10));
                            }
                            steps.add(new Step.Barrier());
                            steps.add(new Step.Complete(true));
                            steps.add(new Step.Delete(first));
                            steps.add(new Step.Delete(second));
                            steps.addAll(after);
                            return new History(parallelism, steps);
                        })
                .filter(history -> World.noticesBeforeTheRetentionRunsOut(history.steps()));
    }

    /** Whether to play the histories with the takeover from before the start protocol. */
    static boolean unconditional() {
        return Boolean.getBoolean("effonce.explore.unconditional");
    }

    /**
     * Plays {@code history} on {@code store} and checks the outcome: the tables equal the model,
     * nothing committed stepped back, and (with the start protocol) the live attempt never failed.
     * Reports what the history explored.
     */
    static <K, V> void check(StoreUnderTest<K, V> store, History history) {
        TakeoverExplorer<K, V> explorer = new TakeoverExplorer<>(store, unconditional());
        String wrong = explorer.play(history.parallelism(), history.steps());
        collect(explorer);
        String trace = String.join("\n", explorer.trace());
        assertThat(wrong).as(trace).isNull();
        if (!unconditional()) {
            assertThat(explorer.liveFailures()).as(trace).isZero();
        }
    }

    /** Reports what the history made paused attempts do, so a run says what it explored. */
    private static void collect(TakeoverExplorer<?, ?> explorer) {
        Statistics.label("paused attempts woken")
                .collect(explorer.woken().isEmpty() ? "none" : "some");
        for (String outcome : explorer.woken()) {
            Statistics.label("a woken attempt").collect(outcome);
        }
        Statistics.label("froze inside a step").collect(explorer.frozeInsideAStep());
        Statistics.label("JobManager failovers")
                .collect(Math.min(explorer.jobManagerFailovers(), 2));
        Statistics.label("stop-with-savepoints failed after the savepoint")
                .collect(Math.min(explorer.stopsFailed(), 2));
        Statistics.label("resets cut between takeover and delete")
                .collect(Math.min(explorer.resetsCut(), 2));
        Statistics.label("connection cuts that hit a COMMIT")
                .collect(Math.min(explorer.cutsHit().size(), 2));
        for (String cut : explorer.cutsHit()) {
            Statistics.label("a connection cut").collect(cut);
        }
        Statistics.label("restarts before every subtask had an open attempt, faults stopped")
                .collect(explorer.settleRestarts());
        Statistics.label("the database went back")
                .collect(Math.min(explorer.databaseWentBack(), 2));
        Statistics.label("a live attempt noticed the database went back")
                .collect(Math.min(explorer.goingBackNoticed(), 2));
        Statistics.label("live attempts failed with the database down")
                .collect(Math.min(explorer.failedWithTheDatabaseDown(), 2));
    }
}
