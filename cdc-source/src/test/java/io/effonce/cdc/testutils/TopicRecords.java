package io.effonce.cdc.testutils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.effonce.testing.kafka.KafkaTopics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a topic from the beginning, keeping what it has read, so a test can poll it repeatedly
 * (inside Awaitility) and look at everything that arrived so far.
 */
public final class TopicRecords implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One record as the job would see it. */
    public record Rec(
            int partition, long offset, String key, JsonNode value, boolean heartbeatHeader) {

        public boolean isHeartbeat() {
            return value != null && value.path("heartbeat").asBoolean(false);
        }
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final List<Rec> records = new ArrayList<>();

    public TopicRecords(String bootstrap, String topic) {
        this.consumer = KafkaTopics.consumer(bootstrap);
        this.topic = topic;
        List<TopicPartition> parts = KafkaTopics.partitions(consumer, topic);
        consumer.assign(parts);
        consumer.seekToBeginning(parts);
    }

    /** Polls what is there now (a few polls) and returns everything read so far. */
    public List<Rec> poll() {
        for (int i = 0; i < 20; i++) {
            var batch = consumer.poll(Duration.ofMillis(200));
            for (ConsumerRecord<byte[], byte[]> r : batch) {
                records.add(
                        new Rec(
                                r.partition(),
                                r.offset(),
                                r.key() == null
                                        ? null
                                        : new String(r.key(), StandardCharsets.UTF_8),
                                parse(r.value()),
                                r.headers().lastHeader("effonce.heartbeat") != null));
            }
            if (batch.isEmpty()) {
                break;
            }
        }
        return records;
    }

    /** Sum of the end offsets of the topic's partitions: records written so far. */
    public long endOffsetTotal() {
        Collection<TopicPartition> parts = consumer.assignment();
        Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
        return ends.values().stream().mapToLong(Long::longValue).sum();
    }

    public int partitions() {
        return consumer.assignment().size();
    }

    public String topic() {
        return topic;
    }

    private static JsonNode parse(byte[] value) {
        if (value == null) {
            return null;
        }
        try {
            return JSON.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
