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
    record Outcome(String topic, int partition, long offset, String reason, String result) {

        Outcome as(String newResult) {
            return new Outcome(topic, partition, offset, reason, newResult);
        }
    }

    private static final int FETCH_SIZE = 1_000;

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
        // A cursor, not the whole table in memory: pgjdbc fetches in batches only in a transaction.
        connection.setAutoCommit(false);
        connection.setReadOnly(true);
        try (PreparedStatement query = selection.query(connection)) {
            query.setFetchSize(FETCH_SIZE);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    Outcome read =
                            new Outcome(
                                    rows.getString(1),
                                    rows.getInt(2),
                                    rows.getLong(3),
                                    rows.getString(4),
                                    null);
                    String value = rows.getString(5);
                    RepublishableValue judged = RepublishableValue.of(value);
                    if (!judged.isPublished()) {
                        report.accept(read.as("skipped: " + judged.skipped()));
                    } else if (dryRun) {
                        published++;
                        report.accept(read.as("would be published"));
                    } else {
                        published++;
                        sends.add(send(read.topic(), judged.paymentId(), value));
                        pending.add(read);
                    }
                }
            }
        } finally {
            connection.rollback();
        }
        producer.flush();
        for (int i = 0; i < sends.size(); i++) {
            RecordMetadata to = sends.get(i).get();
            report.accept(pending.get(i).as("published as " + to.partition() + "/" + to.offset()));
        }
        return published;
    }

    private Future<RecordMetadata> send(String topic, String paymentId, String value) {
        return producer.send(
                new ProducerRecord<>(
                        topic,
                        paymentId.getBytes(StandardCharsets.UTF_8),
                        value.getBytes(StandardCharsets.UTF_8)));
    }
}
