package io.effonce.it.testutils;

import static org.awaitility.Awaitility.await;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A ledger workload that runs until the test says stop, so it overlaps every fault by construction
 * rather than by the machine's speed: the test gates each fault on the workload's progress ({@link
 * #awaitMore}), may hold it at a commit boundary to see the totals settle ({@link #whilePaused}),
 * and ends it with {@link #stopAndDrain}, which lets every started payment reach its final state.
 */
public final class RunningWorkload implements AutoCloseable {

    /** Upper bound for waits on the workload itself; a busy machine is slow, not this slow. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final CompletableFuture<WorkloadReport> run;
    private volatile long started;
    private volatile boolean stopRequested;
    private boolean pauseRequested;
    private boolean pausedAtCommit;

    private RunningWorkload(WorkloadOptions options, PostgresEndpoint db) {
        this.run =
                CompletableFuture.supplyAsync(
                        () ->
                                new LedgerWorkload(options)
                                        .run(db, this::afterCommit, () -> stopRequested));
        // A pause waiting for a commit learns at once that no commit will come.
        run.whenComplete((report, failure) -> wakeWaiters());
    }

    private synchronized void wakeWaiters() {
        notifyAll();
    }

    /** Starts {@code options} on another thread; its count is an upper bound, not the plan. */
    public static RunningWorkload start(WorkloadOptions.Builder options, PostgresEndpoint db) {
        return new RunningWorkload(options.build(), db);
    }

    private synchronized void afterCommit(WorkloadReport report) {
        started = report.started();
        while (pauseRequested && !stopRequested) {
            pausedAtCommit = true;
            notifyAll();
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("The workload was interrupted while paused", e);
            }
        }
        pausedAtCommit = false;
    }

    /** Payments started (committed) so far. */
    public long started() {
        return started;
    }

    /**
     * Waits until {@code more} payments beyond those started now are committed: the gate before a
     * fault, so changes are flowing when it lands. Returns the count reached.
     */
    public long awaitMore(long more) {
        long target = started + more;
        try {
            await("the workload to start %d payments".formatted(target))
                    .atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> started >= target || run.isDone());
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "The workload started only %d of %d payments in %s"
                            .formatted(started, target, TIMEOUT),
                    e);
        }
        if (run.isDone()) {
            throw new AssertionError(
                    "The workload ended before the test stopped it, after %d payments: %s"
                            .formatted(started, outcome()));
        }
        return started;
    }

    /** Pauses the workload at its next commit and waits until it is held there. */
    private synchronized void pause() {
        pauseRequested = true;
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!pausedAtCommit && !run.isDone()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(
                        "The workload did not reach a commit to pause at in " + TIMEOUT);
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Lets a paused workload go on. */
    private synchronized void resume() {
        pauseRequested = false;
        notifyAll();
    }

    /** Pauses the workload, runs {@code check} against a ledger that holds still, resumes. */
    public void whilePaused(Runnable check) {
        pause();
        try {
            check.run();
        } finally {
            resume();
        }
    }

    /**
     * Stops starting payments, lets every started one finish, and returns what the run committed.
     * Fails if the run failed.
     */
    public WorkloadReport stopAndDrain() {
        requestStop();
        try {
            return run.get();
        } catch (ExecutionException e) {
            throw new AssertionError("The workload failed: " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits for the run to end after a fault that breaks its connection (PostgreSQL restarted) and
     * returns the failure; fails if the run ended without one.
     */
    public Throwable awaitFailure() {
        try {
            WorkloadReport report = run.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError(
                    "The workload should have lost its connection, but finished: "
                            + report.summary());
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError(
                    "The workload was still running %s after the fault that should have broken its"
                                    .formatted(TIMEOUT)
                            + " connection",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private synchronized void requestStop() {
        stopRequested = true;
        notifyAll();
    }

    private String outcome() {
        try {
            return run.getNow(null).summary();
        } catch (RuntimeException e) {
            return "failed: " + e.getMessage();
        }
    }

    @Override
    public void close() {
        requestStop();
        run.cancel(false);
    }
}
