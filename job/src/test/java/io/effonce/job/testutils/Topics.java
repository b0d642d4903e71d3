package io.effonce.job.testutils;

import io.effonce.testing.kafka.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Publishes the synthetic ledger's records, and raw bytes, as the relay would ({@link
 * KafkaTopics#send}).
 */
public final class Topics {

    private Topics() {}

    /** Sends each (key, value) and waits until Kafka acknowledged all of them. */
    public static void publish(
            String bootstrap, String topic, List<SyntheticLedger.Change> records) {
        KafkaTopics.send(
                bootstrap,
                records.stream()
                        .map(
                                r ->
                                        new ProducerRecord<>(
                                                topic,
                                                r.key() == null
                                                        ? null
                                                        : r.key().getBytes(StandardCharsets.UTF_8),
                                                r.value().getBytes(StandardCharsets.UTF_8)))
                        .toList());
    }

    /** Sends each value as it is (any bytes) under {@code key}; waits for every acknowledgement. */
    public static void publishRaw(String bootstrap, String topic, String key, List<byte[]> values) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        KafkaTopics.send(
                bootstrap, values.stream().map(v -> new ProducerRecord<>(topic, k, v)).toList());
    }
}
