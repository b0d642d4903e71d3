package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The embedded broker restarted in place (same data, same port) while a producer keeps sending: the
 * producer and a consumer reconnect to the address they already have, and every record the broker
 * acknowledged, before, during or after the restart, is there afterwards.
 */
@ExtendWith(KafkaExtension.class)
class KafkaBrokerRestartITCase {

    private static final String TOPIC = "broker-restart";

    @Test
    void everyAcknowledgedRecordSurvivesARestart(EmbeddedKafka kafka) throws Exception {
        String bootstrap = kafka.bootstrapServers();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicInteger failed = new AtomicInteger();
        try (var producer = KafkaTopics.textProducer(bootstrap, Duration.ofSeconds(60))) {
            for (int i = 0; i < 500; i++) {
                String v = "before-" + i;
                producer.send(new ProducerRecord<>(TOPIC, v, v)).get();
                acknowledged.add(v);
            }

            AtomicBoolean stop = new AtomicBoolean();
            Thread during =
                    new Thread(
                            () -> {
                                for (int i = 0; !stop.get(); i++) {
                                    String v = "during-" + i;
                                    producer.send(
                                            new ProducerRecord<>(TOPIC, v, v),
                                            (meta, error) -> {
                                                if (error == null) {
                                                    acknowledged.add(v);
                                                } else {
                                                    failed.incrementAndGet();
                                                }
                                            });
                                    try {
                                        Thread.sleep(2); // pacing: about 500 sends a second
                                    } catch (InterruptedException e) {
                                        return;
                                    }
                                }
                            },
                            "producer-during-restart");
            during.start();
            await("a record sent before the restart acknowledged")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> acknowledged.stream().anyMatch(v -> v.startsWith("during-")));
            kafka.restartBroker(Duration.ofSeconds(2));
            // Keep sending until a record sent while the broker was back is acknowledged too.
            long duringBefore = acknowledged.stream().filter(v -> v.startsWith("during-")).count();
            await("a record sent after the restart acknowledged")
                    .atMost(Duration.ofMinutes(5))
                    .until(
                            () ->
                                    acknowledged.stream()
                                                    .filter(v -> v.startsWith("during-"))
                                                    .count()
                                            > duringBefore);
            stop.set(true);
            during.join();
            producer.flush();

            assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
            for (int i = 0; i < 500; i++) {
                String v = "after-" + i;
                producer.send(new ProducerRecord<>(TOPIC, v, v)).get();
                acknowledged.add(v);
            }
        }

        Set<String> present = consumeAll(bootstrap);
        assertThat(acknowledged)
                .as("acknowledged records (%d failed sends)", failed.get())
                .anyMatch(v -> v.startsWith("during-"));
        Set<String> missing = new HashSet<>(acknowledged);
        missing.removeAll(present);
        assertThat(missing).as("acknowledged but not in the topic").isEmpty();
    }

    private static Set<String> consumeAll(String bootstrap) {
        Set<String> values = new HashSet<>();
        try (var consumer =
                new KafkaConsumer<>(
                        Map.<String, Object>of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                bootstrap,
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed"),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(TOPIC).stream()
                            .map(p -> new TopicPartition(TOPIC, p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                assertThat(System.nanoTime()).as("read to the end in time").isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }
}
