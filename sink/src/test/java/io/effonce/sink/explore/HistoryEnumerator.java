package io.effonce.sink.explore;

import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Walks every history of a {@link World} up to a number of steps after its seed, each played from
 * the start on a fresh in-memory store and held to the explorer's model. A step that does not apply
 * in the state it meets makes the history a shorter one played again: it is pruned with everything
 * after it. So are orders of data steps that only differ in which key went first, since a key's
 * writes do not depend on another key's. The first history that ends wrong is the walk's
 * counterexample.
 */
final class HistoryEnumerator {

    /** Histories played at once: one per core of the machines this runs on. */
    private static final int WORKERS = 2;

    /**
     * What a walk explored, and the first history it found wrong: its trace, and its steps after
     * the world's seed.
     */
    record Walk(
            long histories,
            long pruned,
            Optional<String> counterexample,
            Optional<List<Step>> wrongHistory) {}

    private final World world;
    private final int steps;
    private final Function<InMemoryStoreUnderTest, TakeoverExplorer<String, Long>> explorers;
    private final AtomicLong histories = new AtomicLong();
    private final AtomicLong pruned = new AtomicLong();
    private final AtomicReference<String> counterexample = new AtomicReference<>();
    private final AtomicReference<List<Step>> wrongHistory = new AtomicReference<>();

    /**
     * @param explorers the explorer of one history, over its store (with its retention, rule off)
     */
    HistoryEnumerator(
            World world,
            int steps,
            Function<InMemoryStoreUnderTest, TakeoverExplorer<String, Long>> explorers) {
        this.world = world;
        this.steps = steps;
        this.explorers = explorers;
    }

    /** Walks every history, the subtrees of the first steps shared out among the workers. */
    Walk walk() throws InterruptedException, ExecutionException {
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
        try {
            List<Future<?>> subtrees = new ArrayList<>();
            for (Step first : world.alphabet()) {
                subtrees.add(workers.submit(() -> walkFrom(List.of(first))));
            }
            for (Future<?> subtree : subtrees) {
                subtree.get();
            }
        } finally {
            workers.shutdownNow();
        }
        return new Walk(
                histories.get(),
                pruned.get(),
                Optional.ofNullable(counterexample.get()),
                Optional.ofNullable(wrongHistory.get()));
    }

    /** Plays {@code history}; if it applied and holds, every history that extends it. */
    private void walkFrom(List<Step> history) {
        if (counterexample.get() != null) {
            return;
        }
        if (!World.keepsToTheAssumption(history) || !inKeyOrder(history)) {
            pruned.incrementAndGet();
            return;
        }
        TakeoverExplorer<String, Long> explorer = explorers.apply(new InMemoryStoreUnderTest());
        List<Step> played = new ArrayList<>(world.seed());
        played.addAll(history);
        String wrong = explorer.play(world.parallelism(), played);
        if (explorer.skipped() > 0) {
            pruned.incrementAndGet();
            return;
        }
        histories.incrementAndGet();
        if (wrong != null && wrongHistory.compareAndSet(null, List.copyOf(history))) {
            counterexample.set(
                    world.name()
                            + " "
                            + history
                            + ": "
                            + wrong
                            + "\n"
                            + String.join("\n", explorer.trace()));
            return;
        }
        if (wrong != null) {
            return;
        }
        if (history.size() < steps) {
            for (Step next : world.alphabet()) {
                List<Step> longer = new ArrayList<>(history);
                longer.add(next);
                walkFrom(longer);
            }
        }
    }

    /**
     * Whether the history's last two steps, if both data steps, are in key order: a key's writes do
     * not depend on another key's, so the other order is the same history.
     */
    private static boolean inKeyOrder(List<Step> history) {
        if (history.size() < 2) {
            return true;
        }
        Integer before = keyOf(history.get(history.size() - 2));
        Integer last = keyOf(history.get(history.size() - 1));
        return before == null || last == null || before <= last;
    }

    private static Integer keyOf(Step step) {
        if (step instanceof Step.Upsert u) {
            return u.key();
        } else if (step instanceof Step.Delete d) {
            return d.key();
        } else if (step instanceof Step.Retire r) {
            return r.key();
        }
        return null;
    }
}
