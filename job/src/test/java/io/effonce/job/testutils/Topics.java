package io.effonce.job.testutils;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Creates topics and publishes records as the relay would (idempotent producer, acks=all). */
public final class Topics {

    private Topics() {}

    public static void create(String bootstrap, String topic, int partitions)
            throws ExecutionException, InterruptedException {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // As the relay creates its topic: the broker's clock stamps every record.
            admin.createTopics(
                            List.of(
                                    new NewTopic(topic, partitions, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            TopicConfig
                                                                    .MESSAGE_TIMESTAMP_TYPE_CONFIG,
                                                            "LogAppendTime"))))
                    .all()
                    .get();
        }
    }

    /** Sends each (key, value) and waits until Kafka acknowledged all of them. */
    public static void publish(
            String bootstrap, String topic, List<SyntheticLedger.Change> records) {
        send(
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
        send(bootstrap, values.stream().map(v -> new ProducerRecord<>(topic, k, v)).toList());
    }

    private static void send(String bootstrap, List<ProducerRecord<byte[], byte[]>> records) {
        Map<String, Object> props =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.LINGER_MS_CONFIG,
                        5);
        try (var producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (ProducerRecord<byte[], byte[]> r : records) {
                producer.send(r);
            }
            producer.flush();
        }
    }
}
