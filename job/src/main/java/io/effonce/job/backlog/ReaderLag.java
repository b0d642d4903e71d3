package io.effonce.job.backlog;

import org.apache.flink.api.connector.source.SourceEvent;

/**
 * A source subtask's word to its enumerator: whether it is behind, and how old the newest record it
 * emitted was when it said so. Sent only when the answer changes.
 */
record ReaderLag(boolean behind, long lagMillis) implements SourceEvent {}
