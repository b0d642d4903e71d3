package io.effonce.job.decode;

/**
 * One record of the change topic after decoding: a payment change, a heartbeat (which only moves
 * event time forward), a dead letter, or nothing (a tombstone). Exactly one of the first three is
 * set.
 *
 * @param snapshotRow the change is a row of the relay's initial snapshot ({@code op = r}): the
 *     ledger's history, sent in primary-key order rather than in event-time order
 */
public record LedgerRecord(
        PaymentChange change, DeadLetter deadLetter, long heartbeatMillis, boolean snapshotRow) {

    public static final long NO_HEARTBEAT = Long.MIN_VALUE;

    /** A change streamed from the write-ahead log ({@code op} c or u). */
    public static LedgerRecord of(PaymentChange change) {
        return new LedgerRecord(change, null, NO_HEARTBEAT, false);
    }

    /** A row of the initial snapshot ({@code op} r). */
    public static LedgerRecord snapshotRow(PaymentChange change) {
        return new LedgerRecord(change, null, NO_HEARTBEAT, true);
    }

    public static LedgerRecord of(DeadLetter deadLetter) {
        return new LedgerRecord(null, deadLetter, NO_HEARTBEAT, false);
    }

    public static LedgerRecord heartbeat(long millis) {
        return new LedgerRecord(null, null, millis, false);
    }

    public boolean isHeartbeat() {
        return heartbeatMillis != NO_HEARTBEAT;
    }

    /** The event time the watermark generator sees: the change's, the heartbeat's, or none. */
    public long eventTime() {
        if (change != null) {
            return change.eventTimeMillis();
        }
        return isHeartbeat() ? heartbeatMillis : Long.MIN_VALUE;
    }
}
