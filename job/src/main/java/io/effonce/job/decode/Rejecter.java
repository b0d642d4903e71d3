package io.effonce.job.decode;

import java.nio.charset.StandardCharsets;

/** Turns a rejected record into its dead letter: where it was, the reason, the raw value (cut). */
final class Rejecter {
    private final String topic;
    private final int partition;
    private final long offset;
    private final byte[] value;
    private final int maxRawChars;

    Rejecter(String topic, int partition, long offset, byte[] value, int maxRawChars) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.value = value;
        this.maxRawChars = maxRawChars;
    }

    LedgerRecord because(RejectReason reason, String detail) {
        String raw = new String(value, StandardCharsets.UTF_8);
        if (raw.length() > maxRawChars) {
            raw = raw.substring(0, maxRawChars);
        }
        return LedgerRecord.of(
                new DeadLetter(topic, partition, offset, reason.describe(detail), raw));
    }
}
