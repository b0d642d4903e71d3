package io.effonce.sink.explore;

import io.effonce.sink.SinkChange;
import io.effonce.sink.testutils.PauseGate;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * One task attempt of the sink subtask, on a thread of its own (a harness is used from one thread,
 * as a task is), behind its own {@link PauseGate}.
 */
final class Attempt<K, V> {

    /** What the attempt does in one step. */
    @FunctionalInterface
    interface Work<K, V> {
        void run(KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h)
                throws Exception;
    }

    /** How a step the attempt was handed ended. */
    enum Ended {
        DONE,
        FROZE,
        THREW
    }

    static final Duration STEP_LIMIT = Duration.ofSeconds(60);

    final int number;
    final int subtask;
    final int parallelism;

    /** The execution graph that deployed it: one per JobManager leadership. */
    final ExecutionGraphID graph;

    final PauseGate gate = new PauseGate();
    final KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> harness;
    private final ExecutorService thread;
    private final AtomicReference<Throwable> thrown = new AtomicReference<>();

    boolean opened;
    boolean frozen;
    long lastBarrier;

    /** The keys whose day was closed when the JobManager gave up on this frozen attempt. */
    Set<Integer> closedWhenFrozen = Set.of();

    /** The newest checkpoint issued when this attempt was deployed, and when it was given up. */
    long issuedWhenDeployed;

    long issuedWhenGivenUp;

    Attempt(
            int number,
            int subtask,
            int parallelism,
            ExecutionGraphID graph,
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> harness) {
        this.number = number;
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.graph = graph;
        this.harness = harness;
        this.thread =
                Executors.newSingleThreadExecutor(
                        r -> new Thread(r, "subtask-" + subtask + "-attempt-" + number));
        thread.execute(gate::bindToThisThread);
    }

    /**
     * Hands the attempt a step and waits until it ended or froze at a store call; the failure, if
     * it threw, is in {@link #thrown()}.
     */
    Ended run(Work<K, V> work) {
        thrown.set(null);
        gate.stepStarted();
        thread.execute(
                () -> {
                    try {
                        work.run(harness);
                    } catch (Throwable t) {
                        thrown.set(t);
                    } finally {
                        gate.stepEnded();
                    }
                });
        return settle();
    }

    /** Lets a frozen attempt go on and waits until its step ended. */
    Ended wake() {
        gate.resume();
        return settle();
    }

    private Ended settle() {
        frozen = gate.awaitEndedOrFrozen(STEP_LIMIT);
        if (frozen) {
            return Ended.FROZE;
        }
        return thrown.get() == null ? Ended.DONE : Ended.THREW;
    }

    Throwable thrown() {
        return thrown.get();
    }

    /** The process is gone: what it was frozen in never reaches the store. */
    void crash() {
        gate.crash();
        if (frozen) {
            settle();
        }
        dispose();
    }

    @Override
    public String toString() {
        return "subtask "
                + subtask
                + " of "
                + parallelism
                + " attempt "
                + number
                + " of graph "
                + graph.toString().substring(0, 4);
    }

    /** Closes the harness on the attempt's thread and ends the thread. */
    void dispose() {
        if (thread.isShutdown()) {
            return; // disposed already: a history that failed crashes what it still holds
        }
        gate.resume();
        thread.execute(
                () -> {
                    try {
                        harness.close();
                    } catch (Exception ignored) {
                        // a crashed or refused attempt may fail to close; nothing depends on it
                    }
                });
        thread.shutdown();
        try {
            if (!thread.awaitTermination(STEP_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError(
                        "attempt " + number + " did not stop within " + STEP_LIMIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
