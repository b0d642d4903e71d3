package io.effonce.sink.internal;

import io.effonce.sink.ProgressRule;
import java.io.Serializable;
import java.time.Duration;
import org.apache.flink.annotation.Internal;

/**
 * The operator's validated settings.
 *
 * @param alwaysFullFlush {@code sink.restore-flush} FULL: every restore flush a full one
 * @param progress what each commit records as its progress, from the watermark at its barrier
 * @param retiredRetention {@code sink.retired-retention}: how long a retired key's final value
 *     stays in state (zero: none)
 * @param ownerLease {@code sink.owner-lease}: how long a running deployment holds its key groups
 *     against a start without state
 */
@Internal
public record SinkSettings(
        int batchSize,
        Duration flushInterval,
        boolean resetOnFreshStart,
        boolean alwaysFullFlush,
        ProgressRule progress,
        Duration retiredRetention,
        Duration ownerLease)
        implements Serializable {

    /** What a start is decided by. */
    StartRules startRules() {
        return new StartRules(resetOnFreshStart, alwaysFullFlush, ownerLease);
    }
}
