package io.effonce.sink.explore;

import io.effonce.sink.testutils.ConnectionCut;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * One thing that happens to a job with one or two sink subtasks: input (an upsert, a retire, a
 * delete) reaches a live attempt, a checkpoint is taken or completes, the JobManager gives up on an
 * attempt (it crashed, or it is only paused and will wake up later), an attempt is paused at its
 * next store calls, a paused one wakes up, an operator restores an older checkpoint as a new run
 * (at one or two subtasks: a deployment's parallelism is drawn, so a restore also rescales). A
 * subtask index is taken modulo the parallelism of the moment. A store call's connection can be cut
 * at its COMMIT. The sink's database can go back in time to a copy kept earlier (where the explored
 * store can). A step that does not apply in the state it meets is skipped, so every list of steps
 * is a valid history and shrinking keeps it one.
 */
sealed interface Step {

    int KEYS = 4;

    /** The key's total grows by {@code amount}. */
    record Upsert(int key, int amount) implements Step {}

    /** The key's day closes: its total is final. */
    record Retire(int key) implements Step {}

    /** The key is deleted (its total goes; a later upsert starts it again from nothing). */
    record Delete(int key) implements Step {}

    /** A checkpoint barrier passes the live attempt (the checkpoint is not complete yet). */
    record Barrier() implements Step {}

    /** The oldest pending checkpoint completes; the notice reaches the attempt or is lost. */
    record Complete(boolean notified) implements Step {}

    /**
     * The JobManager gives up on a subtask's live attempt and restarts the job: every subtask's
     * next attempt restores the latest completed checkpoint. That attempt crashed, or is frozen and
     * may wake up later; the others are cancelled.
     */
    record Fail(int subtask, boolean paused) implements Step {}

    /**
     * The JobManager fails over: a new one takes the lead with a new execution graph, numbers
     * attempts from 0 again and restores the latest completed checkpoint. The old leader's attempt
     * of subtask {@code subtask} is frozen, not dead, when {@code paused}; the others are gone.
     * Checkpoint ids go on from where the old leader left them.
     */
    record JobManagerFailover(int subtask, boolean paused) implements Step {}

    /** A subtask's live attempt opens: it asks for its range, then flushes. */
    record Open(int subtask) implements Step {}

    /** A subtask's live attempt freezes before its {@code calls + 1}-th store call from now. */
    record PauseAfter(int subtask, int calls) implements Step {}

    /**
     * An operator cancels the job and deploys it again from an older checkpoint, {@code back}
     * completions before the latest: a new run, which rolls the totals back on purpose.
     */
    record OlderSavepoint(int back, int parallelism) implements Step {}

    /**
     * A stop-with-savepoint whose savepoint completes (its notice reaches every live attempt), then
     * fails before the job finishes: Flink restores the latest completed checkpoint, which is older
     * than the savepoint (savepoints are never in its completed-checkpoint store).
     */
    record FailedStopWithSavepoint() implements Step {}

    /**
     * An operator deploys the job again without state, with {@code sink.reset-on-fresh-start}: a
     * new run that deletes what the table holds. With {@code cut}, the process of one attempt dies
     * between its takeover and its delete; its subtask's next attempt must finish the reset.
     */
    record FreshStartWithReset(int subtask, boolean cut, int parallelism) implements Step {}

    /**
     * A subtask's live attempt loses its connection at the COMMIT of its {@code calls + 1}-th store
     * call from now: the transaction committed or not, and the database is back for the session's
     * retry or stays out of reach until the task fails.
     */
    record CutConnection(int subtask, int calls, ConnectionCut cut) implements Step {}

    /**
     * The sink's database is copied as it is now: a state an asynchronous standby or a backup
     * holds, which {@link DatabaseGoesBack} may later promote in its place. A copy is also kept at
     * every completed checkpoint.
     */
    record CopyDatabase() implements Step {}

    /**
     * The sink's database goes back to the copy {@code back} copies before the latest (the oldest
     * kept, if fewer): everything acknowledged since (rows, commits, fence, writers' counts, tokens
     * handed out) is gone, and its sessions end.
     */
    record DatabaseGoesBack(int back) implements Step {}

    /** A frozen attempt of the past wakes up, finishes what it was doing and tries to write. */
    record Wake(int which) implements Step {}

    /** A checkpoint's barrier passes every live attempt and the checkpoint completes at once. */
    record Checkpoint(boolean notified) implements Step {}

    /**
     * A subtask's live attempt crashes and the job restarts; the subtask's next attempt opens, and
     * its process dies before its {@code calls + 1}-th store call (after its takeover, in its
     * flush): Flink restores the latest completed checkpoint again.
     */
    record OpenDies(int subtask, int calls) implements Step {}

    /**
     * Processing time passes beyond {@code sink.retired-retention} on every live attempt (a long
     * outage, slow restarts): the final values and tombstones state kept expire.
     */
    record RetentionPasses() implements Step {}

    /**
     * An operator deploys the job a second time, without state and without the reset, while it runs
     * (issue 73's history 6): every attempt of the mistake must be refused and change nothing; then
     * it is cancelled.
     */
    record SecondDeploymentByMistake() implements Step {}

    /**
     * Part of the sink's database goes back to the copy {@code back} copies before the latest: its
     * live, staged and committed rows and the writers' counts, not its progress nor its fences (an
     * operator restored some tables).
     */
    record TablesGoBack(int back) implements Step {}

    static Arbitrary<Step> any() {
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS - 1);
        Arbitrary<Integer> amount = Arbitraries.integers().between(1, 50);
        Arbitrary<Integer> subtask = Arbitraries.integers().between(0, 1);
        Arbitrary<Boolean> flag = Arbitraries.of(true, false);
        return Arbitraries.frequencyOf(
                List.of(
                        weighted(5, Combinators.combine(key, amount).as(Upsert::new)),
                        weighted(1, key.map(Retire::new)),
                        weighted(2, key.map(Delete::new)),
                        weighted(3, Arbitraries.just(new Barrier())),
                        weighted(3, flag.map(Complete::new)),
                        weighted(3, Combinators.combine(subtask, flag).as(Fail::new)),
                        weighted(2, Combinators.combine(subtask, flag).as(JobManagerFailover::new)),
                        weighted(4, subtask.map(Open::new)),
                        weighted(
                                3,
                                Combinators.combine(subtask, Arbitraries.integers().between(0, 6))
                                        .as(PauseAfter::new)),
                        weighted(
                                8,
                                Combinators.combine(
                                                subtask,
                                                Arbitraries.integers().between(0, 2),
                                                Arbitraries.of(ConnectionCut.class))
                                        .as(CutConnection::new)),
                        weighted(3, Arbitraries.integers().between(0, 3).map(Wake::new)),
                        weighted(2, Arbitraries.just(new CopyDatabase())),
                        weighted(
                                3, Arbitraries.integers().between(0, 2).map(DatabaseGoesBack::new)),
                        weighted(3, Arbitraries.just(new FailedStopWithSavepoint())),
                        weighted(
                                2,
                                Combinators.combine(
                                                subtask, flag, Arbitraries.integers().between(1, 2))
                                        .as(FreshStartWithReset::new)),
                        weighted(
                                1,
                                Combinators.combine(
                                                Arbitraries.integers().between(1, 2),
                                                Arbitraries.integers().between(1, 2))
                                        .as(OlderSavepoint::new)),
                        weighted(2, flag.map(Checkpoint::new)),
                        weighted(
                                2,
                                Combinators.combine(subtask, Arbitraries.integers().between(1, 3))
                                        .as(OpenDies::new)),
                        weighted(1, Arbitraries.just(new RetentionPasses())),
                        weighted(1, Arbitraries.integers().between(0, 2).map(TablesGoBack::new))));
    }

    private static Tuple2<Integer, Arbitrary<Step>> weighted(
            int weight, Arbitrary<? extends Step> steps) {
        return Tuple.of(weight, steps.map(s -> (Step) s));
    }
}
