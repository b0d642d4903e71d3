package io.effonce.job.backlog;

import org.apache.flink.metrics.MetricGroup;

/**
 * What the source's enumerators have decided, as its metrics show it. One per source on the
 * JobManager, kept by the source across the enumerators a global failover creates again: the
 * coordinator's metric group outlives them, and a gauge registered twice keeps the first.
 */
final class BacklogStatus {

    private volatile boolean backlog;
    private volatile long backlogsEntered;
    private boolean registered;

    synchronized void registerOnce(MetricGroup group) {
        if (!registered) {
            group.gauge("processingBacklog", () -> backlog ? 1 : 0);
            group.gauge("backlogsEntered", () -> backlogsEntered);
            registered = true;
        }
    }

    boolean backlog() {
        return backlog;
    }

    void set(boolean next) {
        backlog = next;
    }

    /** A reader said it is behind while none was: a backlog found, not presumed. */
    void entered() {
        backlogsEntered++;
    }
}
