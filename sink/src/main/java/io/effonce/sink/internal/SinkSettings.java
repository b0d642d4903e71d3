package io.effonce.sink.internal;

import java.io.Serializable;
import java.time.Duration;

/**
 * The operator's validated settings.
 *
 * @param deleteStaleOnFlush {@code false} only in tests that show why the flush deletes
 */
public record SinkSettings(
        int batchSize,
        Duration flushInterval,
        boolean resetOnFreshStart,
        boolean deleteStaleOnFlush)
        implements Serializable {}
