package io.effonce.job.decode;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Set;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * Turns one record of the relay's topic into a {@link LedgerRecord}. It reads the standard Debezium
 * JSON envelope with converter schemas off ({@code before, after, source, op, ts_ms}) or on (the
 * same wrapped in {@code payload}), the relay's heartbeats ({@code {"heartbeat":true,"ts_ms":...}})
 * and Debezium's own from its heartbeat topic ({@code {"ts_ms":...}}, either form), which Debezium
 * on Kafka Connect writes. Anything it cannot use becomes a dead letter with a reason; it never
 * throws on bad input.
 */
public final class ChangeDecoder implements Serializable {

    private static final long serialVersionUID = 1L;

    /** States a payment row may hold (the ledger's constraint). */
    public static final Set<String> STATES =
            Set.of("PENDING", "UNKNOWN", "SUCCEEDED", "FAILED", "VOID");

    /** 10^12 minor units (ten billion in major units): no single payment is that large. */
    public static final long MAX_AMOUNT = 1_000_000_000_000L;

    /**
     * Longest payment or merchant id accepted, in characters. At up to 4 bytes a character in
     * UTF-8, 256 characters stay far below what a PostgreSQL B-tree entry can hold (about 2,700
     * bytes), so every sink key (totals primary key, late_events' event id) fits its index.
     */
    public static final int MAX_ID_CHARS = 256;

    /** Earliest and latest event time accepted: what a DATE and a TIMESTAMPTZ column can hold. */
    public static final Instant MIN_EVENT_TIME = Instant.parse("0001-01-01T00:00:00Z");

    public static final Instant MAX_EVENT_TIME = Instant.parse("9999-12-31T23:59:59.999Z");

    /** Debezium's operations that carry a row to count: create, update, snapshot read. */
    private static final Set<String> COUNTED_OPS = Set.of("c", "u", "r");

    /** The op of a row read by the relay's snapshot rather than streamed from the log. */
    private static final String SNAPSHOT_READ = "r";

    /** Debezium's operations the ledger must never produce: delete, truncate, message. */
    private static final Set<String> UNSUPPORTED_OPS = Set.of("d", "t", "m");

    /** Kafka's timestamp of a record that has none (message format 0): nothing to check against. */
    public static final long NO_TIMESTAMP = -1;

    private final ZoneId zone;
    private final int maxRawChars;
    private final EventTimeRule eventTime;

    /**
     * @param tolerance how far a change's or heartbeat's time may lie ahead of its Kafka record's
     *     timestamp ({@link io.effonce.job.JobOptions#EVENT_TIME_TOLERANCE})
     */
    public ChangeDecoder(ZoneId zone, int maxRawChars, Duration tolerance) {
        this.zone = zone;
        this.maxRawChars = maxRawChars;
        this.eventTime = new EventTimeRule(tolerance);
    }

    /**
     * Decodes one record; {@code null} for a tombstone (a record with no value).
     *
     * @param recordTimestamp the Kafka record's timestamp, or {@link #NO_TIMESTAMP}
     */
    public LedgerRecord decode(
            String topic, int partition, long offset, long recordTimestamp, byte[] value) {
        if (value == null) {
            return null;
        }
        Rejecter reject = new Rejecter(topic, partition, offset, value, maxRawChars);
        EnvelopeScan root;
        try {
            root = EnvelopeScan.read(value);
        } catch (IOException e) {
            return reject.because(RejectReason.NOT_JSON, shortMessage(e));
        }
        if (!root.object) {
            return reject.because(RejectReason.NOT_AN_ENVELOPE, "the value is not a JSON object");
        }
        EnvelopeScan envelope = root.envelope();
        if (root.heartbeat) {
            return heartbeat(root.tsMs, recordTimestamp, reject);
        }
        if (envelope != null && envelope.debeziumHeartbeat()) {
            return heartbeat(envelope.tsMs, recordTimestamp, reject);
        }
        if (envelope == null || !envelope.hasOp) {
            return reject.because(
                    RejectReason.NOT_AN_ENVELOPE, "no Debezium envelope (op, after, source)");
        }
        if (UNSUPPORTED_OPS.contains(envelope.op)) {
            return reject.because(
                    RejectReason.UNSUPPORTED_OP,
                    "op "
                            + envelope.op
                            + " (the ledger never deletes or truncates payments; the rows it"
                            + " removed need a recount)");
        }
        if (!COUNTED_OPS.contains(envelope.op)) {
            return reject.because(
                    RejectReason.UNKNOWN_OP, "'" + FieldRules.clip(envelope.op) + "'");
        }
        if (envelope.after == null || envelope.after == JsonToken.VALUE_NULL) {
            return reject.because(RejectReason.NO_AFTER, "op " + envelope.op + " has no after");
        }
        if (envelope.after != JsonToken.START_OBJECT) {
            return reject.because(RejectReason.MISTYPED_FIELD, "after");
        }
        return decodeAfter(
                envelope,
                envelope.op.equals(SNAPSHOT_READ),
                topic,
                partition,
                offset,
                recordTimestamp,
                reject);
    }

    private LedgerRecord decodeAfter(
            EnvelopeScan after,
            boolean snapshotRow,
            String topic,
            int partition,
            long offset,
            long recordTimestamp,
            Rejecter reject) {
        Fields f = new Fields(after);
        String paymentId = f.text("payment_id", true);
        String state = f.text("state", true);
        String updatedAt = f.text("updated_at", true);
        if (f.failure != null) {
            return reject.because(f.failure, f.failedField);
        }
        String badId = FieldRules.identifierProblem(paymentId);
        if (badId != null) {
            return reject.because(RejectReason.BAD_IDENTIFIER, "after.payment_id " + badId);
        }
        String knownState = FieldRules.knownState(state);
        if (knownState == null) {
            return reject.because(RejectReason.UNKNOWN_STATE, FieldRules.clip(state));
        }
        state = knownState;
        Instant at;
        try {
            at = UtcTimestamps.parse(updatedAt);
            if (!EventTimeRule.inBounds(at)) {
                return reject.because(
                        RejectReason.BAD_TIME, EventTimeRule.outside("updated_at", at));
            }
        } catch (DateTimeParseException e) {
            return reject.because(
                    RejectReason.BAD_TIME, "updated_at '" + FieldRules.clip(updatedAt) + "'");
        }
        String ahead = eventTime.aheadOfRecord("updated_at", at.toEpochMilli(), recordTimestamp);
        if (ahead != null) {
            return reject.because(RejectReason.EVENT_TIME_AHEAD, ahead);
        }
        // A VOID row has no merchant, amount or currency; every other row must have all three.
        boolean voidRow = state.equals("VOID");
        String merchantId = f.text("merchant_id", !voidRow);
        long amount = f.number("amount", !voidRow);
        String currency = f.text("currency", !voidRow);
        if (f.failure != null) {
            return reject.because(f.failure, f.failedField);
        }
        if (!voidRow) {
            badId = FieldRules.identifierProblem(merchantId);
            if (badId != null) {
                return reject.because(RejectReason.BAD_IDENTIFIER, "after.merchant_id " + badId);
            }
            if (amount < 0) {
                return reject.because(RejectReason.NEGATIVE_AMOUNT, Long.toString(amount));
            }
            if (amount > MAX_AMOUNT) {
                return reject.because(RejectReason.ABSURD_AMOUNT, Long.toString(amount));
            }
            currency = currency.strip();
            if (!FieldRules.isCurrencyCode(currency)) {
                return reject.because(
                        RejectReason.BAD_CURRENCY, "'" + FieldRules.clip(currency) + "'");
            }
        }
        PaymentChange change =
                new PaymentChange(
                        paymentId,
                        merchantId,
                        amount,
                        currency,
                        state,
                        at.toEpochMilli(),
                        LocalDate.ofInstant(at, zone),
                        topic,
                        partition,
                        offset);
        return snapshotRow ? LedgerRecord.snapshotRow(change) : LedgerRecord.of(change);
    }

    /**
     * A heartbeat: the relay's ({@code "heartbeat":true} on every partition of the changes topic)
     * or Debezium's own on its heartbeat topic; its time moves event time like a change's.
     */
    private LedgerRecord heartbeat(EnvelopeScan.Field ts, long recordTimestamp, Rejecter reject) {
        if (ts == null || !ts.fitsLong()) {
            return reject.because(RejectReason.MISTYPED_FIELD, "heartbeat ts_ms");
        }
        // The same bounds as a change's time: Long.MIN_VALUE would read as "no heartbeat".
        if (!EventTimeRule.inBounds(Instant.ofEpochMilli(ts.number()))) {
            return reject.because(
                    RejectReason.BAD_TIME, EventTimeRule.outside("heartbeat ts_ms", ts.number()));
        }
        String ahead = eventTime.aheadOfRecord("heartbeat ts_ms", ts.number(), recordTimestamp);
        if (ahead != null) {
            return reject.because(RejectReason.EVENT_TIME_AHEAD, ahead);
        }
        return LedgerRecord.heartbeat(ts.number());
    }

    private static String shortMessage(Exception e) {
        String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }

    /** Reads typed fields of {@code after}, keeping the first problem found. */
    private static final class Fields {
        private final EnvelopeScan after;
        RejectReason failure;
        String failedField;

        Fields(EnvelopeScan after) {
            this.after = after;
        }

        String text(String name, boolean required) {
            EnvelopeScan.Field f = after.afterField(name);
            if (f == null || f.token() == JsonToken.VALUE_NULL) {
                missing(name, required);
                return null;
            }
            if (f.token() != JsonToken.VALUE_STRING) {
                fail(RejectReason.MISTYPED_FIELD, name);
                return null;
            }
            return f.text();
        }

        long number(String name, boolean required) {
            EnvelopeScan.Field f = after.afterField(name);
            if (f == null || f.token() == JsonToken.VALUE_NULL) {
                missing(name, required);
                return 0;
            }
            if (!f.fitsLong()) {
                fail(RejectReason.MISTYPED_FIELD, name);
                return 0;
            }
            return f.number();
        }

        private void missing(String name, boolean required) {
            if (required) {
                fail(RejectReason.MISSING_FIELD, name);
            }
        }

        private void fail(RejectReason reason, String name) {
            if (failure == null) {
                failure = reason;
                failedField = "after." + name;
            }
        }
    }
}
