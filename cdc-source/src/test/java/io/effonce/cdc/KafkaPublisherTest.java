package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.debezium.engine.DebeziumEngine.Offsets;
import io.debezium.engine.DebeziumEngine.RecordCommitter;
import io.debezium.engine.RecordChangeEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaPublisherTest {

    private static final Schema SOURCE =
            SchemaBuilder.struct()
                    .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
                    .build();
    private static final Schema ENVELOPE =
            SchemaBuilder.struct()
                    .field("op", Schema.STRING_SCHEMA)
                    .field("source", SOURCE)
                    .build();
    private static final Schema KEY =
            SchemaBuilder.struct().field("payment_id", Schema.STRING_SCHEMA).build();
    private static final Schema HEARTBEAT =
            SchemaBuilder.struct().field("ts_ms", Schema.INT64_SCHEMA).build();

    @TempDir Path dir;

    private final MockProducer<byte[], byte[]> producer =
            new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final RelayMetrics metrics = new RelayMetrics();

    @Test
    void aHeartbeatInsideTheSnapshotIsHeldAndOneAfterItsLastRowIsPublished() throws Exception {
        KafkaPublisher publisher = publisher();
        publisher.handleBatch(
                List.of(
                        change("p1", "r", "first"),
                        heartbeat(),
                        change("p2", "r", "true"),
                        change("p3", "r", "last"),
                        heartbeat(),
                        change("p1", "u", "false"),
                        heartbeat()),
                new Committer());

        assertThat(keys()).containsExactly("p1", "p2", "p3", "hb", "hb", "p1", "hb", "hb");
        assertThat(metrics.heartbeatsHeld()).isEqualTo(1);
        assertThat(metrics.heartbeatsPublished()).isEqualTo(2);
        assertThat(metrics.snapshotRowsPublished()).isEqualTo(3);
        assertThat(metrics.snapshotEnded()).isTrue();
    }

    @Test
    void aSnapshotCutByARestartHoldsHeartbeatsAcrossBatchesUntilItsLastRow() throws Exception {
        KafkaPublisher publisher = publisher();
        publisher.handleBatch(List.of(change("p1", "r", "true")), new Committer());
        publisher.handleBatch(List.of(heartbeat()), new Committer());
        assertThat(metrics.heartbeatsHeld()).isEqualTo(1);
        assertThat(metrics.snapshotEnded()).isFalse();

        publisher.handleBatch(List.of(change("p2", "r", "last"), heartbeat()), new Committer());
        assertThat(keys()).containsExactly("p1", "p2", "hb", "hb");
        assertThat(metrics.snapshotEnded()).isTrue();
    }

    @Test
    void streamedChangesNeverHoldAHeartbeat() throws Exception {
        KafkaPublisher publisher = publisher();
        publisher.handleBatch(
                List.of(change("p1", "c", "false"), heartbeat(), change("p1", "u", "false")),
                new Committer());
        assertThat(keys()).containsExactly("p1", "hb", "hb", "p1");
        assertThat(metrics.heartbeatsHeld()).isZero();
        assertThat(metrics.snapshotRowsPublished()).isZero();
    }

    private KafkaPublisher publisher() {
        RelayOptions options =
                RelayCli.parse(
                        new String[] {
                            "--db-url", "jdbc:postgresql://127.0.0.1:5432/ledger",
                            "--kafka-bootstrap", "127.0.0.1:9092",
                            "--topic-prefix", "t",
                            "--offsets-file", dir.resolve("offsets").toString()
                        },
                        Map.of("EFFONCE_PG_PASSWORD", "x"));
        return new KafkaPublisher(producer, options, List.of(0, 1), metrics);
    }

    private List<String> keys() {
        List<String> keys = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : producer.history()) {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            keys.add(key.equals(Heartbeats.KEY) ? "hb" : key);
        }
        return keys;
    }

    private static RecordChangeEvent<SourceRecord> change(
            String paymentId, String op, String snapshot) {
        Struct source =
                new Struct(SOURCE).put("lsn", 1L).put("ts_ms", 2L).put("snapshot", snapshot);
        Struct value = new Struct(ENVELOPE).put("op", op).put("source", source);
        Struct key = new Struct(KEY).put("payment_id", paymentId);
        SourceRecord record =
                new SourceRecord(
                        Map.of(), Map.of(), "t.public.payments", null, KEY, key, ENVELOPE, value);
        return () -> record;
    }

    private static RecordChangeEvent<SourceRecord> heartbeat() {
        SourceRecord record =
                new SourceRecord(
                        Map.of(),
                        Map.of("lsn", 1L),
                        "__debezium-heartbeat.t",
                        null,
                        null,
                        null,
                        HEARTBEAT,
                        new Struct(HEARTBEAT).put("ts_ms", 3L));
        return () -> record;
    }

    /** Accepts every mark; the publisher's ordering of marks is covered by the relay's ITs. */
    private static final class Committer
            implements RecordCommitter<RecordChangeEvent<SourceRecord>> {
        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record) {}

        @Override
        public void markBatchFinished() {}

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record, Offsets offsets) {}

        @Override
        public Offsets buildOffsets() {
            return null;
        }
    }
}
