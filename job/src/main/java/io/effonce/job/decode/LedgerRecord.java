package io.effonce.job.decode;

/**
 * One record of the change topic after decoding: a payment change, a heartbeat (which only moves
 * event time forward), a dead letter, or nothing (a tombstone). Exactly one of the first three is
 * set.
 */
public record LedgerRecord(PaymentChange change, DeadLetter deadLetter, long heartbeatMillis) {

    public static final long NO_HEARTBEAT = Long.MIN_VALUE;

    public static LedgerRecord of(PaymentChange change) {
        return new LedgerRecord(change, null, NO_HEARTBEAT);
    }

    public static LedgerRecord of(DeadLetter deadLetter) {
        return new LedgerRecord(null, deadLetter, NO_HEARTBEAT);
    }

    public static LedgerRecord heartbeat(long millis) {
        return new LedgerRecord(null, null, millis);
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
