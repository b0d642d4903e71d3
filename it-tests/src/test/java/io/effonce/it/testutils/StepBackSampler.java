package io.effonce.it.testutils;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads the live and the committed totals continuously, as a dashboard would, and counts every time
 * a key's total is lower than the last time it was read, or a key read before is gone. The ledger's
 * SUCCEEDED totals only grow, so a step back is what a reader of that table would see go wrong: the
 * live table steps back during a recovery (its full flush), the committed one must not.
 */
public final class StepBackSampler implements AutoCloseable {

    private final LedgerOracle oracle;
    private final ScheduledExecutorService reader;
    private final Map<MerchantDay, Long> lastLive = new HashMap<>();
    private final Map<MerchantDay, Long> lastCommitted = new HashMap<>();
    private final AtomicLong liveSamples = new AtomicLong();
    private final AtomicLong committedSamples = new AtomicLong();
    private final AtomicLong liveStepsBack = new AtomicLong();
    private final AtomicLong committedStepsBack = new AtomicLong();
    private boolean paused;

    /** Starts reading both tables of {@code db}, one after the other, every 100 ms. */
    public StepBackSampler(PostgresEndpoint db) {
        this.oracle = LedgerOracle.keepingSession(db);
        this.reader =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "step-back-sampler");
                            t.setDaemon(true);
                            return t;
                        });
        reader.scheduleWithFixedDelay(this::sample, 0, 100, TimeUnit.MILLISECONDS);
    }

    private void sample() {
        if (paused) {
            return;
        }
        try {
            liveStepsBack.addAndGet(stepsBack(oracle.sinkTotals(), lastLive));
            liveSamples.incrementAndGet();
            committedStepsBack.addAndGet(stepsBack(oracle.committedTotals(), lastCommitted));
            committedSamples.incrementAndGet();
        } catch (RuntimeException e) {
            // the database may be restarting; the next sample will tell
        }
    }

    private static long stepsBack(Map<MerchantDay, Total> now, Map<MerchantDay, Long> last) {
        long steps = 0;
        for (Map.Entry<MerchantDay, Long> before : last.entrySet()) {
            Total current = now.get(before.getKey());
            if (current == null || current.totalMinor() < before.getValue()) {
                steps++;
            }
        }
        last.clear();
        now.forEach((key, total) -> last.put(key, total.totalMinor()));
        return steps;
    }

    /** Key-reads of the live table that found a key lower than (or gone since) the read before. */
    public long liveStepsBack() {
        return liveStepsBack.get();
    }

    public long committedStepsBack() {
        return committedStepsBack.get();
    }

    /** Reads of the committed table (each reads every key). */
    public long committedSamples() {
        return committedSamples.get();
    }

    public long liveSamples() {
        return liveSamples.get();
    }

    /**
     * Runs {@code goBack}, which puts the database itself back in time, between two reads, and
     * starts counting again from what the next read finds: the tables stepping back with their
     * database is that fault, not the job's; what the job writes after it must not step back.
     */
    public void whileTheDatabaseGoesBack(Runnable goBack) {
        try {
            reader.submit(
                            () -> {
                                goBack.run();
                                lastLive.clear();
                                lastCommitted.clear();
                            })
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the database went back", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("The database did not go back", e.getCause());
        }
    }

    /**
     * Runs {@code rollBack}, an operator's rollback of a release, without reading, and starts
     * counting again from what the next read finds: what the rolled-back release committed leaves
     * the committed table with it; what the job writes after it must not step back.
     */
    public void whileRolledBack(Runnable rollBack) {
        onReader(() -> paused = true);
        try {
            rollBack.run();
        } finally {
            onReader(
                    () -> {
                        lastLive.clear();
                        lastCommitted.clear();
                        paused = false;
                    });
        }
    }

    private void onReader(Runnable action) {
        try {
            reader.submit(action).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the sampler", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("The sampler failed", e.getCause());
        }
    }

    @Override
    public void close() {
        reader.shutdownNow();
        try {
            reader.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        oracle.close();
    }
}
