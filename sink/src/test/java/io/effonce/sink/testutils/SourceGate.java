package io.effonce.sink.testutils;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

/**
 * A rate limiter for a generator source on a MiniCluster (same JVM as the test) that emits only as
 * many records as the test has allowed, replays after a restore included. A bounded job cannot
 * finish before the test's faults are done, whatever the machine's speed: the test allows a stretch
 * of records before each fault, so the job is mid-stream when it lands, and opens the gate after
 * the last one. Waiting is asynchronous (an incomplete future), so checkpoints go on.
 */
public final class SourceGate implements RateLimiterStrategy<SourceSplit> {

    private static final Queue<Waiting> WAITING = new ArrayDeque<>();
    private static long allowance;
    private static long emitted;

    private final double perSecond;

    private record Waiting(int permits, CompletableFuture<Void> go) {}

    private SourceGate(double perSecond) {
        this.perSecond = perSecond;
    }

    /**
     * Closes the gate after {@code firstStretch} records and resets the count; one job at a time.
     */
    public static synchronized SourceGate perSecond(double perSecond, long firstStretch) {
        WAITING.clear();
        allowance = firstStretch;
        emitted = 0;
        return new SourceGate(perSecond);
    }

    /** Lets {@code more} records through. */
    public static synchronized void allow(long more) {
        allowance = allowance > Long.MAX_VALUE - more ? Long.MAX_VALUE : allowance + more;
        while (!WAITING.isEmpty() && emitted + WAITING.peek().permits() <= allowance) {
            Waiting next = WAITING.poll();
            emitted += next.permits();
            next.go().complete(null);
        }
    }

    /** Lets every remaining record through. */
    public static void open() {
        allow(Long.MAX_VALUE);
    }

    /** Records let through so far, replays included. */
    public static synchronized long emitted() {
        return emitted;
    }

    private static synchronized CompletableFuture<Void> pass(int permits) {
        if (WAITING.isEmpty() && emitted + permits <= allowance) {
            emitted += permits;
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> go = new CompletableFuture<>();
        WAITING.add(new Waiting(permits, go));
        return go;
    }

    @Override
    public RateLimiter<SourceSplit> createRateLimiter(int parallelism) {
        @SuppressWarnings("unchecked")
        RateLimiter<SourceSplit> pace =
                RateLimiterStrategy.perSecond(perSecond).createRateLimiter(parallelism);
        return new RateLimiter<>() {
            @Override
            public CompletionStage<Void> acquire(int permits) {
                return pass(permits).thenCompose(v -> pace.acquire(permits));
            }

            @Override
            public void notifyCheckpointComplete(long checkpointId) {
                pace.notifyCheckpointComplete(checkpointId);
            }
        };
    }
}
