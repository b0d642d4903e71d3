package io.effonce.sink.internal;

import java.io.Serializable;
import java.time.Duration;

/**
 * The operator's validated settings.
 *
 * @param resetOptionName the option a user sets to allow a reset, named in the refusal message
 * @param deleteStaleOnFlush {@code false} only in tests that show why the flush deletes
 */
public record SinkSettings(
        int batchSize,
        Duration flushInterval,
        boolean resetOnFreshStart,
        String resetOptionName,
        boolean deleteStaleOnFlush)
        implements Serializable {}
