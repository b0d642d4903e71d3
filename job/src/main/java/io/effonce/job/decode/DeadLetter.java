package io.effonce.job.decode;

/**
 * A record the job could not use, with the reason; one row of {@code dead_letters}, unique on
 * (topic, partition, offset). NUL characters, which PostgreSQL text cannot hold, are replaced in
 * the topic, the reason and the raw value so that the row itself can always be written.
 *
 * @param rawValue the record's value as text, cut to the job's size limit
 */
public record DeadLetter(String topic, int partition, long offset, String reason, String rawValue) {

    public DeadLetter {
        topic = withoutNul(topic);
        reason = withoutNul(reason);
        rawValue = withoutNul(rawValue);
    }

    private static String withoutNul(String s) {
        return s == null ? null : s.replace('\u0000', '\uFFFD');
    }
}
