package io.effonce.cdc.republish;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which rows of {@code dead_letters} to publish again: a reason (its code, e.g. {@code
 * event-time-ahead}, or any prefix of the stored reason), a range of {@code recorded_at}, a topic,
 * a partition and a range of offsets; unset parts select everything. Read in the order the job read
 * them (topic, partition, offset), with bound parameters only.
 */
public record DeadLetterSelection(
        String reason,
        Instant recordedFrom,
        Instant recordedTo,
        String topic,
        Integer partition,
        Long offsetFrom,
        Long offsetTo) {

    /** Whether nothing narrows the selection: every dead letter. */
    public boolean isEverything() {
        return reason == null
                && recordedFrom == null
                && recordedTo == null
                && topic == null
                && partition == null
                && offsetFrom == null
                && offsetTo == null;
    }

    /** The query, parameters bound. */
    PreparedStatement query(Connection connection) throws SQLException {
        StringBuilder sql =
                new StringBuilder(
                        "SELECT topic, kafka_partition, kafka_offset, reason, raw_value"
                                + " FROM dead_letters WHERE true");
        List<Object> values = new ArrayList<>();
        // A prefix: LIKE's own characters in it are taken literally.
        where(sql, values, " AND starts_with(reason, ?)", reason);
        where(sql, values, " AND recorded_at >= ?", timestamp(recordedFrom));
        where(sql, values, " AND recorded_at < ?", timestamp(recordedTo));
        where(sql, values, " AND topic = ?", topic);
        where(sql, values, " AND kafka_partition = ?", partition);
        where(sql, values, " AND kafka_offset >= ?", offsetFrom);
        where(sql, values, " AND kafka_offset <= ?", offsetTo);
        sql.append(" ORDER BY topic, kafka_partition, kafka_offset");
        PreparedStatement statement = connection.prepareStatement(sql.toString());
        for (int i = 0; i < values.size(); i++) {
            statement.setObject(i + 1, values.get(i));
        }
        return statement;
    }

    /** Adds {@code condition} with its bound {@code value}, unless the value is unset. */
    private static void where(
            StringBuilder sql, List<Object> values, String condition, Object value) {
        if (value != null) {
            sql.append(condition);
            values.add(value);
        }
    }

    private static Timestamp timestamp(Instant instant) {
        return instant == null ? null : Timestamp.from(instant);
    }
}
