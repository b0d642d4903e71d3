package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class LocalServicesITCase {

    @Test
    void postgresAcceptsConnectionsWithLogicalDecoding(PostgresEndpoint db) throws Exception {
        try (Connection connection = db.connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW wal_level")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("logical");
        }
    }

    @Test
    void postgresRestartsOnTheSameDataAndPort(EmbeddedPostgres server) throws Exception {
        PostgresEndpoint admin = server.endpoint();
        try (Connection c = admin.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS survives_restart (v int)");
            s.execute("INSERT INTO survives_restart VALUES (42)");
        }
        server.restart();
        try (Connection c = admin.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT sum(v) FROM survives_restart")) {
            rs.next();
            assertThat(rs.getLong(1)).isGreaterThanOrEqualTo(42);
        }
    }

    @Test
    void kafkaRoundTrip(KafkaBootstrap kafka) {
        String topic = "round-trip";
        Map<String, Object> producerProps =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.servers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all");
        try (var producer =
                new KafkaProducer<>(
                        producerProps, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, "pay_7", "SUCCEEDED")).get();
        } catch (Exception e) {
            throw new AssertionError("produce failed", e);
        }
        Map<String, Object> consumerProps =
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.servers(),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest");
        try (var consumer =
                new KafkaConsumer<>(
                        consumerProps, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            ConsumerRecord<String, String> received = null;
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (received == null && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    received = r;
                }
            }
            assertThat(received).isNotNull();
            assertThat(received.key()).isEqualTo("pay_7");
            assertThat(received.value()).isEqualTo("SUCCEEDED");
        }
    }

    @Test
    void aTakenPortIsNamedInTheFailure() throws Exception {
        try (var socket =
                new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int port = socket.getLocalPort();
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () ->
                                    EmbeddedPostgres.start(
                                            java.nio.file.Files.createTempDirectory("pg"), port))
                    .isInstanceOf(StartupFailure.class)
                    .hasMessageContaining("port " + port)
                    .hasMessageContaining("already in use");
        }
    }
}
