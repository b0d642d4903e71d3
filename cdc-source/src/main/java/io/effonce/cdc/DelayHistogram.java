package io.effonce.cdc;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts delays in milliseconds, safe to record from one thread and read from any. Buckets are 1 ms
 * wide up to 100 ms, 10 ms up to 1 s, 100 ms up to 10 s and one bucket beyond, so a percentile is
 * exact to its bucket's width: cheap enough to record every change.
 */
public final class DelayHistogram {

    private static final int FINE = 100; // 0..99 ms, 1 ms each
    private static final int MEDIUM = 90; // 100..999 ms, 10 ms each
    private static final int COARSE = 90; // 1,000..9,999 ms, 100 ms each
    private static final int BUCKETS = FINE + MEDIUM + COARSE + 1; // last: 10 s or more

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    /** Records one delay; a negative delay (clocks of two hosts) counts as 0. */
    public void record(long delayMs) {
        counts.incrementAndGet(bucket(Math.max(0, delayMs)));
    }

    /** The counts recorded so far, to subtract a later snapshot from. */
    public Snapshot snapshot() {
        long[] copy = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            copy[i] = counts.get(i);
        }
        return new Snapshot(copy);
    }

    private static int bucket(long ms) {
        if (ms < 100) {
            return (int) ms;
        }
        if (ms < 1_000) {
            return FINE + (int) ((ms - 100) / 10);
        }
        if (ms < 10_000) {
            return FINE + MEDIUM + (int) ((ms - 1_000) / 100);
        }
        return BUCKETS - 1;
    }

    /** The upper bound of a bucket in ms; the last bucket reports 10 s. */
    private static long upperBound(int bucket) {
        if (bucket < FINE) {
            return bucket + 1;
        }
        if (bucket < FINE + MEDIUM) {
            return 100 + (bucket - FINE + 1) * 10L;
        }
        if (bucket < FINE + MEDIUM + COARSE) {
            return 1_000 + (bucket - FINE - MEDIUM + 1) * 100L;
        }
        return 10_000;
    }

    /** Counts at one moment. */
    public static final class Snapshot {
        private final long[] counts;

        private Snapshot(long[] counts) {
            this.counts = counts;
        }

        /** What was recorded after {@code earlier}. */
        public Snapshot since(Snapshot earlier) {
            long[] diff = new long[BUCKETS];
            for (int i = 0; i < BUCKETS; i++) {
                diff[i] = counts[i] - earlier.counts[i];
            }
            return new Snapshot(diff);
        }

        public long count() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }

        /**
         * The upper bound of the bucket holding the {@code p}-th percentile (0 < p <= 100), in ms;
         * -1 when nothing was recorded.
         */
        public long percentile(double p) {
            long n = count();
            if (n == 0) {
                return -1;
            }
            long rank = (long) Math.ceil(p / 100.0 * n);
            long seen = 0;
            for (int i = 0; i < BUCKETS; i++) {
                seen += counts[i];
                if (seen >= rank) {
                    return upperBound(i);
                }
            }
            return upperBound(BUCKETS - 1);
        }

        @Override
        public String toString() {
            return count() == 0
                    ? "none"
                    : String.format(
                            "p50 %d ms, p99 %d ms, max %d ms (%d changes)",
                            percentile(50), percentile(99), percentile(100), count());
        }
    }
}
