package io.effonce.bench.latency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The relay's share of each success's delay, from the topic alone: the time Kafka stamped on the
 * SUCCEEDED change's record (the relay's send) minus the change's commit time ({@code
 * source.ts_ms}, PostgreSQL's commit timestamp). The change's {@code updated_at} is earlier: the
 * workload sets it at the start of its transaction.
 */
final class RelayDelays {

    /** Per payment id: record time, commit time and updated_at of its first SUCCEEDED change. */
    private final Map<String, long[]> byPayment = new HashMap<>();

    private RelayDelays() {}

    /** Reads the records Kafka stamped from {@code since} to the end of the topic. */
    static RelayDelays of(String bootstrap, String topic, Instant since) {
        ObjectMapper json = new ObjectMapper();
        RelayDelays delays = new RelayDelays();
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (var consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Map<TopicPartition, Long> query = new HashMap<>();
            partitions.forEach(p -> query.put(p, since.toEpochMilli()));
            Map<TopicPartition, OffsetAndTimestamp> start = consumer.offsetsForTimes(query);
            for (TopicPartition p : partitions) {
                OffsetAndTimestamp at = start.get(p);
                consumer.seek(p, at == null ? end.get(p) : at.offset());
            }
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    JsonNode envelope = json.readTree(r.value());
                    JsonNode after = envelope.path("after");
                    if (after.path("state").asText().equals("SUCCEEDED")) {
                        long updatedAt =
                                Instant.parse(after.path("updated_at").asText()).toEpochMilli();
                        delays.byPayment.putIfAbsent(
                                after.path("payment_id").asText(),
                                new long[] {
                                    r.timestamp(),
                                    envelope.path("source").path("ts_ms").asLong(),
                                    updatedAt
                                });
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read " + topic + " from " + bootstrap, e);
        }
        return delays;
    }

    /** Record time of the payment's SUCCEEDED change, or -1 if it was not read. */
    long recordTime(String paymentId) {
        long[] t = byPayment.get(paymentId);
        return t == null ? -1 : t[0];
    }

    /** Commit time of the payment's SUCCEEDED change, or -1 if it was not read. */
    long commitTime(String paymentId) {
        long[] t = byPayment.get(paymentId);
        return t == null ? -1 : t[1];
    }

    /** Record time minus commit time, for every success whose updated_at is from {@code from}. */
    List<Double> delays(Instant from) {
        long fromMs = from.toEpochMilli();
        return byPayment.values().stream()
                .filter(t -> t[2] >= fromMs)
                .map(t -> (double) (t[0] - t[1]))
                .toList();
    }
}
