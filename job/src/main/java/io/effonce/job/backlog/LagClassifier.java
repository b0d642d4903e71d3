package io.effonce.job.backlog;

import java.time.Duration;

/**
 * Whether a reader is behind, from the age of the records it emits: behind once a record is older
 * than the threshold, caught up again once one is younger than half of it. The gap keeps a reader
 * near the threshold from switching the checkpoint interval back and forth.
 */
final class LagClassifier {

    private final long behindMillis;
    private final long caughtUpMillis;
    private boolean behind;

    LagClassifier(Duration threshold) {
        if (threshold.isNegative() || threshold.isZero()) {
            throw new IllegalArgumentException(
                    "A backlog threshold must be positive: " + threshold);
        }
        this.behindMillis = threshold.toMillis();
        this.caughtUpMillis = threshold.toMillis() / 2;
    }

    /** Takes the age of the newest record; returns true if that changes whether it is behind. */
    boolean observe(long lagMillis) {
        boolean next = behind ? lagMillis >= caughtUpMillis : lagMillis > behindMillis;
        boolean changed = next != behind;
        behind = next;
        return changed;
    }

    boolean behind() {
        return behind;
    }
}
