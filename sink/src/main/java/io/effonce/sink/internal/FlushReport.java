package io.effonce.sink.internal;

/** What one full flush did: keys SET from restored state, stale keys deleted, and how long. */
public record FlushReport(long keysSet, long keysDeleted, long durationMillis) {

    static final FlushReport NONE = new FlushReport(0, 0, 0);
}
