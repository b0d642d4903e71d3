package io.effonce.sink.internal;

import io.effonce.sink.store.ProgressRule;
import java.io.Serializable;
import java.time.Duration;

/**
 * The operator's validated settings.
 *
 * @param deleteStaleOnFlush {@code false} only in tests that show why the flush deletes
 * @param alwaysFullFlush {@code sink.restore-flush} FULL: every restore flush a full one
 * @param progress what each commit records as its progress, from the watermark at its barrier
 */
public record SinkSettings(
        int batchSize,
        Duration flushInterval,
        boolean resetOnFreshStart,
        boolean deleteStaleOnFlush,
        boolean alwaysFullFlush,
        ProgressRule progress)
        implements Serializable {}
