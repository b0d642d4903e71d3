package io.effonce.job.decode;

/**
 * Why a record became a dead letter; {@link #code()} names its counter and starts its row's reason.
 */
public enum RejectReason {
    NOT_JSON("not-json"),
    NOT_AN_ENVELOPE("not-an-envelope"),
    UNSUPPORTED_OP("unsupported-op"),
    UNKNOWN_OP("unknown-op"),
    NO_AFTER("no-after"),
    MISSING_FIELD("missing-field"),
    MISTYPED_FIELD("mistyped-field"),
    BAD_IDENTIFIER("bad-identifier"),
    UNKNOWN_STATE("unknown-state"),
    NEGATIVE_AMOUNT("negative-amount"),
    ABSURD_AMOUNT("absurd-amount"),
    BAD_CURRENCY("bad-currency"),
    BAD_TIME("bad-time"),
    /** A well-formed time further ahead of its Kafka record's timestamp than the tolerance. */
    EVENT_TIME_AHEAD("event-time-ahead"),
    TOTAL_OVERFLOW("total-overflow");

    private final String code;

    RejectReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    /** The reason text stored in {@code dead_letters.reason}. */
    public String describe(String detail) {
        return detail == null || detail.isEmpty() ? code : code + ": " + detail;
    }
}
