package io.effonce.cdc;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one relay run, safe to read from any thread. Every count is of records Kafka has
 * acknowledged; {@link #markedChanges()} trails {@link #changesPublished()} by the batch in flight.
 */
public final class RelayMetrics {

    private final AtomicLong changesPublished = new AtomicLong();
    private final AtomicLong heartbeatsPublished = new AtomicLong();
    private final AtomicLong markedChanges = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong lastLsn = new AtomicLong(-1);
    private final AtomicLong lastSourceTsMs = new AtomicLong(-1);
    private final AtomicLong lastAckedAtMs = new AtomicLong(-1);
    private final AtomicLong lastChangeAckedAtMs = new AtomicLong(-1);
    private final AtomicLong snapshotRowsPublished = new AtomicLong();
    private final AtomicBoolean snapshotEnded = new AtomicBoolean();
    private final AtomicLong heartbeatsHeld = new AtomicLong();
    private final DelayHistogram commitToRelay = new DelayHistogram();
    private final DelayHistogram relayToAck = new DelayHistogram();

    /** Change records acknowledged by Kafka in this run. */
    public long changesPublished() {
        return changesPublished.get();
    }

    /**
     * Heartbeats forwarded (one per Debezium heartbeat, each written to every partition) in this
     * run.
     */
    public long heartbeatsPublished() {
        return heartbeatsPublished.get();
    }

    /** Change records whose source position was handed to the engine for committing. */
    public long markedChanges() {
        return markedChanges.get();
    }

    /** Batches handled. */
    public long batches() {
        return batches.get();
    }

    /** The WAL position ({@code source.lsn}) of the last acknowledged change, or -1. */
    public long lastLsn() {
        return lastLsn.get();
    }

    /** The commit time ({@code source.ts_ms}) of the last acknowledged change, or -1. */
    public long lastSourceTsMs() {
        return lastSourceTsMs.get();
    }

    /** Wall-clock time of the last acknowledgement, or -1. */
    public long lastAckedAtMs() {
        return lastAckedAtMs.get();
    }

    /** Rows of the initial snapshot ({@code op = r}) acknowledged by Kafka in this run. */
    public long snapshotRowsPublished() {
        return snapshotRowsPublished.get();
    }

    /** Whether Kafka acknowledged the snapshot's last row ({@code source.snapshot = last}). */
    public boolean snapshotEnded() {
        return snapshotEnded.get();
    }

    /** Heartbeats not published because they came inside the initial snapshot. */
    public long heartbeatsHeld() {
        return heartbeatsHeld.get();
    }

    /**
     * Per streamed change: from its commit ({@code source.ts_ms}) to the relay receiving it from
     * Debezium (logical decoding, Debezium's queue and batching).
     */
    public DelayHistogram commitToRelay() {
        return commitToRelay;
    }

    /**
     * Per streamed change: from the relay receiving its batch to Kafka acknowledging the whole
     * batch (conversion, sends, acks=all).
     */
    public DelayHistogram relayToAck() {
        return relayToAck;
    }

    void snapshotPublished(long rows, boolean ended, long heldHeartbeats) {
        snapshotRowsPublished.addAndGet(rows);
        heartbeatsHeld.addAndGet(heldHeartbeats);
        if (ended) {
            snapshotEnded.set(true);
        }
    }

    void published(long changes, long heartbeats, long lsn, long sourceTsMs, long nowMs) {
        changesPublished.addAndGet(changes);
        heartbeatsPublished.addAndGet(heartbeats);
        batches.incrementAndGet();
        if (lsn >= 0) {
            lastLsn.set(lsn);
        }
        if (sourceTsMs >= 0) {
            lastSourceTsMs.set(sourceTsMs);
            // A batch of heartbeats alone acknowledges no change: the last change's delay stays.
            lastChangeAckedAtMs.set(nowMs);
        }
        lastAckedAtMs.set(nowMs);
    }

    /** When Kafka acknowledged the batch of the last change (not of a heartbeat), or -1. */
    public long lastChangeAckedAtMs() {
        return lastChangeAckedAtMs.get();
    }

    /** The last change's time from the ledger's commit to Kafka's acknowledgement, or -1. */
    public long lastChangeDelayMs() {
        long sourceTs = lastSourceTsMs.get();
        long ackedAt = lastChangeAckedAtMs.get();
        return sourceTs < 0 || ackedAt < 0 ? -1 : ackedAt - sourceTs;
    }

    void marked(long changes) {
        markedChanges.addAndGet(changes);
    }

    /** {@code 0/16B3748} form of a PostgreSQL LSN, or {@code none}. */
    static String formatLsn(long lsn) {
        if (lsn < 0) {
            return "none";
        }
        return Long.toHexString(lsn >>> 32).toUpperCase(java.util.Locale.ROOT)
                + "/"
                + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return "changes="
                + changesPublished()
                + ", heartbeats="
                + heartbeatsPublished()
                + ", lsn="
                + formatLsn(lastLsn());
    }
}
