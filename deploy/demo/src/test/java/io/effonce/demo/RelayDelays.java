package io.effonce.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the whole topic and returns, per SUCCEEDED change committed from {@code since}, the time
 * Kafka stamped on its record minus the change's commit time.
 */
final class RelayDelays {

    private RelayDelays() {}

    static List<Double> of(String bootstrap, String topic, Instant since) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<Double> delays = new ArrayList<>();
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (var consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    JsonNode after = json.readTree(r.value()).path("after");
                    if (after.path("state").asText().equals("SUCCEEDED")) {
                        Instant committed = Instant.parse(after.path("updated_at").asText());
                        if (!committed.isBefore(since)) {
                            delays.add((double) (r.timestamp() - committed.toEpochMilli()));
                        }
                    }
                }
            }
        }
        return delays;
    }
}
