package io.effonce.it.testutils;

import io.effonce.job.testutils.SyntheticLedger;
import io.effonce.job.testutils.Topics;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.kafka.KafkaTopics;
import io.effonce.testing.oracle.MerchantDay;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A copy of the ledger's oldest (or newest) SUCCEEDED change, exactly as the relay published it:
 * what a relay restarted from an old position re-sends. Re-published after its ID expired, it must
 * be rejected as late; re-published within the horizon, dropped as a duplicate; never counted
 * twice.
 *
 * @param key the merchant-day it counts toward
 */
public record OldChangeCopy(String paymentId, long amount, MerchantDay key, String value) {

    /** Upper bound for finding a change in the topic: a busy broker is slow, not this slow. */
    private static final Duration SEARCH_TIMEOUT = Duration.ofMinutes(2);

    /** Finds the oldest SUCCEEDED payment in the ledger and its change record in the topic. */
    public static OldChangeCopy oldestSucceeded(
            PostgresEndpoint db, String bootstrap, String topic) {
        return succeeded(db, bootstrap, topic, "ASC");
    }

    /** The same for the newest SUCCEEDED payment. */
    public static OldChangeCopy newestSucceeded(
            PostgresEndpoint db, String bootstrap, String topic) {
        return succeeded(db, bootstrap, topic, "DESC");
    }

    private static OldChangeCopy succeeded(
            PostgresEndpoint db, String bootstrap, String topic, String order) {
        SinkTables tables = new SinkTables(db);
        Object[] row = new Object[5];
        tables.query(
                "SELECT payment_id, amount, merchant_id, currency, updated_at FROM payments"
                        + " WHERE state = 'SUCCEEDED' ORDER BY updated_at "
                        + order
                        + ", payment_id LIMIT 1",
                rs -> {
                    row[0] = rs.getString(1);
                    row[1] = rs.getLong(2);
                    row[2] = rs.getString(3);
                    row[3] = rs.getString(4);
                    row[4] = rs.getObject(5, OffsetDateTime.class);
                });
        String paymentId = (String) row[0];
        ConsumerRecord<byte[], byte[]> original =
                KafkaTopics.readAll(bootstrap, topic).stream()
                        .filter(r -> r.key() != null && paymentId.equals(text(r.key())))
                        .filter(r -> text(r.value()).contains("\"state\":\"SUCCEEDED\""))
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        new AssertionError(
                                                "no SUCCEEDED change of "
                                                        + paymentId
                                                        + " in "
                                                        + topic));
        LocalDate day = ((OffsetDateTime) row[4]).atZoneSameInstant(ZoneOffset.UTC).toLocalDate();
        return new OldChangeCopy(
                paymentId,
                (Long) row[1],
                new MerchantDay((String) row[2], day, (String) row[3]),
                text(original.value()));
    }

    /**
     * A copy of the first SUCCEEDED change in the topic (one of the ledger's oldest), found without
     * reading the rest: in a long soak the topic holds millions.
     */
    public static OldChangeCopy firstSucceededInTopic(
            PostgresEndpoint db, String bootstrap, String topic) {
        ConsumerRecord<byte[], byte[]> original = null;
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaTopics.consumer(bootstrap)) {
            List<TopicPartition> partitions = KafkaTopics.partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + SEARCH_TIMEOUT.toNanos();
            while (original == null) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "no SUCCEEDED change in " + topic + " within " + SEARCH_TIMEOUT);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.key() != null && text(r.value()).contains("\"state\":\"SUCCEEDED\"")) {
                        original = r;
                        break;
                    }
                }
            }
        }
        String paymentId = text(original.key());
        try (Connection c = db.connect();
                PreparedStatement s =
                        c.prepareStatement(
                                "SELECT amount, merchant_id, currency, updated_at FROM payments"
                                        + " WHERE payment_id = ?")) {
            s.setString(1, paymentId);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError(
                            "payment " + paymentId + " of the topic not in the ledger");
                }
                LocalDate day =
                        rs.getObject(4, OffsetDateTime.class)
                                .atZoneSameInstant(ZoneOffset.UTC)
                                .toLocalDate();
                return new OldChangeCopy(
                        paymentId,
                        rs.getLong(1),
                        new MerchantDay(rs.getString(2), day, rs.getString(3)),
                        text(original.value()));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not read payment " + paymentId, e);
        }
    }

    /** Publishes the copy to the change topic again. */
    public void republish(String bootstrap, String topic) {
        Topics.publish(bootstrap, topic, List.of(new SyntheticLedger.Change(paymentId, value)));
    }

    /** The copy's event id, as dedup and late_events know it. */
    public String eventId() {
        return paymentId + ":SUCCEEDED";
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
