package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The broker {@code effonce-local kafka} starts: clients that know only the fixed address it prints
 * produce and consume through it (the metadata they get back names that address too).
 */
class KafkaOnAFixedPortITCase {

    @Test
    void clientsReachTheBrokerAtTheFixedAddressAlone() throws Exception {
        int port = freePort();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(port)) {
            String bootstrap = "127.0.0.1:" + port;
            assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                assertThat(admin.describeCluster().nodes().get())
                        .as("the broker a client of the fixed address is sent to")
                        .singleElement()
                        .satisfies(
                                node -> {
                                    assertThat(node.host()).isEqualTo("127.0.0.1");
                                    assertThat(node.port()).isEqualTo(port);
                                });
            }
            try (var producer =
                    new KafkaProducer<String, String>(
                            Map.of(
                                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                                            StringSerializer.class,
                                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                                            StringSerializer.class))) {
                producer.send(new ProducerRecord<>("fixed", "k", "v")).get();
            }
            try (var consumer =
                    new KafkaConsumer<String, String>(
                            Map.of(
                                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    bootstrap,
                                    ConsumerConfig.GROUP_ID_CONFIG,
                                    "fixed",
                                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                    "earliest",
                                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                                    StringDeserializer.class,
                                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                                    StringDeserializer.class))) {
                consumer.subscribe(List.of("fixed"));
                List<String> values = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
                while (values.isEmpty() && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                        values.add(r.value());
                    }
                }
                assertThat(values)
                        .as("the record, read back within 2 minutes")
                        .containsExactly("v");
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
