package io.effonce.job.decode;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether the time of a change or heartbeat can be trusted (job/README.md, "Event time and wrong
 * clocks"): within the instants the job can hold, and not further ahead of its Kafka record's
 * timestamp than {@code event-time.tolerance}.
 */
final class EventTimeRule implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long toleranceMillis;

    EventTimeRule(Duration tolerance) {
        this.toleranceMillis = tolerance.toMillis();
    }

    /** Whether {@code at} is an instant the job can hold. */
    static boolean inBounds(Instant at) {
        return !at.isBefore(ChangeDecoder.MIN_EVENT_TIME)
                && !at.isAfter(ChangeDecoder.MAX_EVENT_TIME);
    }

    /** The reason for a time out of bounds: {@code field value is outside MIN..MAX}. */
    static String outside(String field, Object value) {
        return field
                + " "
                + value
                + " is outside "
                + ChangeDecoder.MIN_EVENT_TIME
                + ".."
                + ChangeDecoder.MAX_EVENT_TIME;
    }

    /**
     * Why {@code eventTime} cannot be trusted, or null: it lies further ahead of the Kafka record's
     * timestamp (the broker's clock on a topic with LogAppendTime, as the relay creates it) than
     * the tolerance. Such a time came from a clock that was wrong (the application server that set
     * {@code updated_at}, the relay host that stamped a heartbeat); counted, it would move event
     * time into the future and every later change would be judged late.
     */
    String aheadOfRecord(String field, long eventTime, long recordTimestamp) {
        if (recordTimestamp < 0 || eventTime - recordTimestamp <= toleranceMillis) {
            return null;
        }
        return field
                + " "
                + Instant.ofEpochMilli(eventTime)
                + " is "
                + Duration.ofMillis(eventTime - recordTimestamp)
                + " ahead of the Kafka record's timestamp "
                + Instant.ofEpochMilli(recordTimestamp)
                + " (event-time.tolerance "
                + Duration.ofMillis(toleranceMillis)
                + ")";
    }
}
