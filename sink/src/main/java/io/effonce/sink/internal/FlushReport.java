package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * What one restore flush did: how ({@link RestoreFlush.Mode}), keys SET from restored state, stale
 * keys deleted, and how long.
 */
@Internal
public record FlushReport(
        RestoreFlush.Mode mode, long keysSet, long keysDeleted, long durationMillis) {

    /** No restore flush ran. */
    public static final FlushReport NONE = new FlushReport(RestoreFlush.Mode.INCREMENTAL, 0, 0, 0);
}
