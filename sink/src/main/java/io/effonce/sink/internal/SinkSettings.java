package io.effonce.sink.internal;

import io.effonce.sink.store.DayFinality;
import java.io.Serializable;
import java.time.Duration;

/**
 * The operator's validated settings.
 *
 * @param deleteStaleOnFlush {@code false} only in tests that show why the flush deletes
 * @param alwaysFullFlush {@code sink.restore-flush} FULL: every restore flush a full one
 * @param finality when a day is final, for the progress of each commit; {@code null}: not recorded
 */
public record SinkSettings(
        int batchSize,
        Duration flushInterval,
        boolean resetOnFreshStart,
        boolean deleteStaleOnFlush,
        boolean alwaysFullFlush,
        DayFinality finality)
        implements Serializable {}
