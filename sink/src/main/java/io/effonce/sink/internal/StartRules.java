package io.effonce.sink.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings a start is decided by ({@link StartPlan#of}), named, not passed as flags.
 *
 * @param resetOnFreshStart {@code sink.reset-on-fresh-start}: a start without state over another
 *     run's rows deletes them (row 7) instead of refusing (row 8)
 * @param alwaysFullFlush {@code sink.restore-flush} FULL: every restore flush a full one
 * @param ownerLease {@code sink.owner-lease}: how long a run that took a range or passed a barrier
 *     in it, and has not closed, still holds it against a start without state (row 5a)
 */
record StartRules(boolean resetOnFreshStart, boolean alwaysFullFlush, Duration ownerLease) {

    /** The defaults of {@code FlushableSinkOptions}. */
    static final StartRules DEFAULTS = new StartRules(false, false, Duration.ofMinutes(10));

    StartRules {
        Objects.requireNonNull(ownerLease, "ownerLease");
    }

    StartRules withResetOnFreshStart(boolean reset) {
        return new StartRules(reset, alwaysFullFlush, ownerLease);
    }

    StartRules withAlwaysFullFlush(boolean full) {
        return new StartRules(resetOnFreshStart, full, ownerLease);
    }
}
