package io.effonce.sink;

import org.apache.flink.annotation.PublicEvolving;

/** Which restore flush the sink runs after a restore ({@code sink.restore-flush}). */
@PublicEvolving
public enum RestoreFlushPolicy {
    /**
     * The incremental flush (only the rows tagged with the restored checkpoint or later) when every
     * key group of the range committed that checkpoint and deleted no row after it, the full flush
     * otherwise. Exact in every case the sink's README lists; the default.
     */
    AUTO,
    /**
     * The full flush after every restore: every key of restored state set again. Never less exact,
     * slower in proportion to the state; for measurements and for anyone who wants the simplest
     * protocol.
     */
    FULL
}
