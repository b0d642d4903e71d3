package io.effonce.cdc.republish;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Publishes the selected dead letters again, each into the topic it came from, under its payment's
 * key, with the time of now: a change refused for its time (a broker whose clock ran slow) is then
 * judged again, against a clock that is right. It is counted once whatever happens after: the job
 * derives the event id from the change ({@code payment_id:state}), so a copy of a change already
 * counted — a second republish, or one the ledger's own repair sent — is a duplicate, or a late
 * event for the recount once its day is final. Every send is acknowledged (acks=all) before the
 * report says it was published.
 */
final class DeadLetterRepublisher {

    /** One dead letter, where it was read and what became of it. */
    record Outcome(String topic, int partition, long offset, String reason, String result) {}

    private final Connection connection;
    private final Producer<byte[], byte[]> producer;

    DeadLetterRepublisher(Connection connection, Producer<byte[], byte[]> producer) {
        this.connection = connection;
        this.producer = producer;
    }

    /**
     * Publishes (or, with {@code dryRun}, only judges) every selected dead letter; each outcome
     * goes to {@code report} in the order read. Returns how many were published (or would be).
     */
    int republish(DeadLetterSelection selection, boolean dryRun, Consumer<Outcome> report)
            throws SQLException, InterruptedException, ExecutionException {
        List<Outcome> pending = new ArrayList<>();
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        int published = 0;
        try (PreparedStatement query = selection.query(connection);
                ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                String topic = rows.getString(1);
                int partition = rows.getInt(2);
                long offset = rows.getLong(3);
                String reason = rows.getString(4);
                String value = rows.getString(5);
                RepublishableValue judged = RepublishableValue.of(value);
                if (!judged.isPublished()) {
                    report.accept(
                            new Outcome(
                                    topic,
                                    partition,
                                    offset,
                                    reason,
                                    "skipped: " + judged.skipped()));
                    continue;
                }
                published++;
                if (dryRun) {
                    report.accept(
                            new Outcome(topic, partition, offset, reason, "would be published"));
                    continue;
                }
                sends.add(
                        producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        judged.paymentId().getBytes(StandardCharsets.UTF_8),
                                        value.getBytes(StandardCharsets.UTF_8))));
                pending.add(new Outcome(topic, partition, offset, reason, null));
            }
        }
        producer.flush();
        for (int i = 0; i < sends.size(); i++) {
            RecordMetadata to = sends.get(i).get();
            Outcome read = pending.get(i);
            report.accept(
                    new Outcome(
                            read.topic(),
                            read.partition(),
                            read.offset(),
                            read.reason(),
                            "published as " + to.partition() + "/" + to.offset()));
        }
        return published;
    }
}
