package io.effonce.sink.explore;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * One thing that happens to a job with one sink subtask: input reaches the live attempt, a
 * checkpoint is taken or completes, the JobManager gives up on the attempt (it crashed, or it is
 * only paused and will wake up later), an attempt is paused at its next store calls, a paused one
 * wakes up. A step that does not apply in the state it meets is skipped, so every list of steps is
 * a valid history and shrinking keeps it one.
 */
sealed interface Step {

    int KEYS = 4;

    /** The key's total grows by {@code amount}. */
    record Upsert(int key, int amount) implements Step {}

    /** The key's day closes: its total is final. */
    record Retire(int key) implements Step {}

    /** A checkpoint barrier passes the live attempt (the checkpoint is not complete yet). */
    record Barrier() implements Step {}

    /** The oldest pending checkpoint completes; the notice reaches the attempt or is lost. */
    record Complete(boolean notified) implements Step {}

    /**
     * The JobManager gives up on the live attempt and deploys the next, restored from the latest
     * completed checkpoint. The old one crashed, or is frozen and may wake up later.
     */
    record Fail(boolean paused) implements Step {}

    /** The live attempt opens: it asks for its range, then flushes. */
    record Open() implements Step {}

    /** The live attempt freezes before its {@code calls + 1}-th store call from now. */
    record PauseAfter(int calls) implements Step {}

    /** A frozen attempt of the past wakes up, finishes what it was doing and tries to write. */
    record Wake(int which) implements Step {}

    static Arbitrary<Step> any() {
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS - 1);
        Arbitrary<Integer> amount = Arbitraries.integers().between(1, 50);
        return Arbitraries.frequencyOf(
                List.of(
                        weighted(5, Combinators.combine(key, amount).as(Upsert::new)),
                        weighted(1, key.map(Retire::new)),
                        weighted(3, Arbitraries.just(new Barrier())),
                        weighted(3, Arbitraries.of(true, false).map(Complete::new)),
                        weighted(3, Arbitraries.of(true, false).map(Fail::new)),
                        weighted(4, Arbitraries.just(new Open())),
                        weighted(3, Arbitraries.integers().between(0, 6).map(PauseAfter::new)),
                        weighted(3, Arbitraries.integers().between(0, 3).map(Wake::new))));
    }

    private static Tuple2<Integer, Arbitrary<Step>> weighted(
            int weight, Arbitrary<? extends Step> steps) {
        return Tuple.of(weight, steps.map(s -> (Step) s));
    }
}
