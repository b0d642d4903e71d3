package io.effonce.cdc;

import io.debezium.engine.DebeziumEngine.ChangeConsumer;
import io.debezium.engine.DebeziumEngine.RecordCommitter;
import io.debezium.engine.RecordChangeEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each batch the engine hands over and only then lets the engine commit it: every record
 * is sent, every send is waited for (Kafka acknowledged it with acks=all), and only after that is
 * each record marked processed and the batch finished. A crash anywhere before the offset commit
 * re-delivers the batch; nothing is ever marked before Kafka has it.
 *
 * <p>Change records go to their own topic with key = payment_id (UTF-8) and the Debezium envelope
 * as schemaless JSON. Debezium heartbeats become one {@link Heartbeats heartbeat record} on every
 * partition of the topic, except inside an initial snapshot (after a snapshot row that is not the
 * snapshot's last), where a heartbeat is held back: Debezium sends none there, and the job's event
 * time depends on it.
 */
final class KafkaPublisher implements ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);

    /** Debezium's {@code op} of a row read by the snapshot. */
    private static final String SNAPSHOT_READ = "r";

    /** Debezium's {@code source.snapshot} on the snapshot's last row. */
    private static final String LAST_SNAPSHOT_ROW = "last";

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final String heartbeatDestination;
    private final List<Integer> partitions;
    private final RelayMetrics metrics;
    private final long haltAfterChanges;
    private final JsonConverter json = new JsonConverter();
    private boolean warnedOther;

    /** Whether the last change published was a snapshot row other than the snapshot's last. */
    private boolean inSnapshot;

    KafkaPublisher(
            Producer<byte[], byte[]> producer,
            RelayOptions options,
            List<Integer> partitions,
            RelayMetrics metrics) {
        this.producer = producer;
        this.topic = options.topic();
        this.heartbeatDestination = options.heartbeatDestination();
        this.partitions = List.copyOf(partitions);
        this.metrics = metrics;
        this.haltAfterChanges = options.haltAfterChanges;
        json.configure(Map.of("schemas.enable", "false"), false);
    }

    @Override
    public void handleBatch(
            List<RecordChangeEvent<SourceRecord>> records,
            RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        long receivedAt = System.currentTimeMillis();
        long[] commitTimes = new long[records.size()];
        int streamed = 0;
        List<Future<RecordMetadata>> sends = new ArrayList<>(records.size() + partitions.size());
        long changes = 0;
        long heartbeats = 0;
        long snapshotRows = 0;
        boolean snapshotEnded = false;
        long heartbeatsHeld = 0;
        long lsn = -1;
        long sourceTs = -1;
        for (RecordChangeEvent<SourceRecord> event : records) {
            SourceRecord r = event.record();
            if (topic.equals(r.topic())) {
                sends.add(producer.send(change(r)));
                changes++;
                if (r.value() instanceof Struct value && value.get("source") instanceof Struct s) {
                    lsn = s.getInt64("lsn") == null ? lsn : s.getInt64("lsn");
                    sourceTs = s.getInt64("ts_ms") == null ? sourceTs : s.getInt64("ts_ms");
                    boolean snapshotRow = SNAPSHOT_READ.equals(value.get("op"));
                    boolean lastRow = LAST_SNAPSHOT_ROW.equals(s.get("snapshot"));
                    inSnapshot = snapshotRow && !lastRow;
                    if (snapshotRow) {
                        snapshotRows++;
                        snapshotEnded |= lastRow;
                    } else if (s.getInt64("ts_ms") != null) {
                        commitTimes[streamed++] = s.getInt64("ts_ms");
                    }
                }
            } else if (heartbeatDestination.equals(r.topic())) {
                if (inSnapshot) {
                    // A heartbeat is wall-clock time: inside the snapshot it would carry event time
                    // past the history still to come, and the job would judge that history late.
                    heartbeatsHeld++;
                    continue;
                }
                long ts = Heartbeats.timestamp(r);
                for (int p : partitions) {
                    sends.add(producer.send(Heartbeats.record(topic, p, ts, Heartbeats.lsn(r))));
                }
                heartbeats++;
            } else if (!warnedOther) {
                warnedOther = true;
                LOG.warn("Skipping a record for {}: the relay publishes {} only", r.topic(), topic);
            }
        }
        for (Future<RecordMetadata> send : sends) {
            try {
                send.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException(
                        "Kafka did not acknowledge a record for "
                                + topic
                                + "; nothing of this batch is marked, it is re-sent after a restart",
                        e.getCause());
            }
        }
        long ackedAt = System.currentTimeMillis();
        for (int i = 0; i < streamed; i++) {
            metrics.commitToRelay().record(receivedAt - commitTimes[i]);
            metrics.relayToAck().record(ackedAt - receivedAt);
        }
        metrics.snapshotPublished(snapshotRows, snapshotEnded, heartbeatsHeld);
        metrics.published(changes, heartbeats, lsn, sourceTs, ackedAt);
        if (haltAfterChanges > 0 && metrics.changesPublished() >= haltAfterChanges) {
            // Test-only crash point: Kafka has the batch, the offset store does not.
            LOG.warn(
                    "Halting after {} acknowledged changes, before marking them",
                    metrics.changesPublished());
            Runtime.getRuntime().halt(RelayCli.EXIT_HALTED);
        }
        for (RecordChangeEvent<SourceRecord> event : records) {
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
        metrics.marked(changes);
    }

    private ProducerRecord<byte[], byte[]> change(SourceRecord r) {
        byte[] key = null;
        if (r.key() instanceof Struct k && k.get("payment_id") != null) {
            key = k.get("payment_id").toString().getBytes(StandardCharsets.UTF_8);
        }
        byte[] value =
                r.value() == null ? null : json.fromConnectData(topic, r.valueSchema(), r.value());
        return new ProducerRecord<>(topic, null, key, value);
    }
}
