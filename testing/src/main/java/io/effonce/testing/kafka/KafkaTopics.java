package io.effonce.testing.kafka;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Topics as the tests and benchmarks use them: created as the relay creates its topic, written as
 * the relay writes (idempotent, {@code acks=all}), and read whole as the job would see them ({@code
 * read_committed}), each time by a consumer of its own.
 */
public final class KafkaTopics {

    private KafkaTopics() {}

    /** Creates {@code topic}; as the relay's, the broker's clock stamps every record. */
    public static void create(String bootstrap, String topic, int partitions)
            throws ExecutionException, InterruptedException {
        create(bootstrap, topic, partitions, "LogAppendTime");
    }

    /**
     * Creates {@code topic} whose records keep the time their producer gives them: a test plays a
     * broker whose clock is wrong by stamping its records itself.
     */
    public static void createStampedByProducers(String bootstrap, String topic, int partitions)
            throws ExecutionException, InterruptedException {
        create(bootstrap, topic, partitions, "CreateTime");
    }

    private static void create(String bootstrap, String topic, int partitions, String stamps)
            throws ExecutionException, InterruptedException {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            NewTopic newTopic =
                    new NewTopic(topic, partitions, (short) 1)
                            .configs(Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, stamps));
            admin.createTopics(List.of(newTopic)).all().get();
            // A send before every partition has its leader is answered NOT_LEADER_OR_FOLLOWER and
            // retried; the first records of a fixture must land at their offsets, so wait. Until
            // the new topic's metadata reaches the broker asked, it answers that it has no such
            // topic (seen on a busy machine): that is part of the wait, not a failure.
            await("every partition of " + topic + " with a leader")
                    .atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptionsMatching(
                            e ->
                                    e instanceof ExecutionException
                                            && e.getCause()
                                                    instanceof UnknownTopicOrPartitionException)
                    .until(
                            () ->
                                    admin
                                            .describeTopics(List.of(topic))
                                            .allTopicNames()
                                            .get()
                                            .get(topic)
                                            .partitions()
                                            .stream()
                                            .allMatch(
                                                    p ->
                                                            p.leader() != null
                                                                    && !p.leader().isEmpty()));
        }
    }

    /** Sends every record and returns once Kafka acknowledged all of them. */
    public static void send(String bootstrap, List<ProducerRecord<byte[], byte[]>> records) {
        Map<String, Object> props = acknowledgedOnAllInSync(bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // One request in flight: a retried batch can never meet a later one.
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        try (var producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (ProducerRecord<byte[], byte[]> r : records) {
                producer.send(r);
            }
            producer.flush();
        }
    }

    /**
     * A producer of text records that keeps retrying through a broker's death (reconnecting every
     * half second) for up to {@code deliveryTimeout}; a record it acknowledges is on every in-sync
     * replica.
     */
    public static KafkaProducer<String, String> textProducer(
            String bootstrap, Duration deliveryTimeout) {
        Map<String, Object> props = acknowledgedOnAllInSync(bootstrap);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) deliveryTimeout.toMillis());
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static Map<String, Object> acknowledgedOnAllInSync(String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return props;
    }

    /** A consumer of committed records in a group of its own, committing nothing. */
    public static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Map<String, Object> props =
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "reader-" + UUID.randomUUID(),
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** The topic's partitions, as a consumer assigns them. */
    public static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
        return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
    }

    /** How many records the topic holds (the sum of its partitions' end offsets). */
    public static long size(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            return consumer.endOffsets(partitions(consumer, topic)).values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
        }
    }

    /** Every record the topic holds now, partition by partition in offset order. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    records.add(r);
                }
            }
        }
        return records;
    }
}
