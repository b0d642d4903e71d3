package io.effonce.cdc.republish;

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
    PreparedStatement query(java.sql.Connection connection) throws SQLException {
        StringBuilder sql =
                new StringBuilder(
                        "SELECT topic, kafka_partition, kafka_offset, reason, raw_value"
                                + " FROM dead_letters WHERE true");
        List<Object> values = new ArrayList<>();
        if (reason != null) {
            // A prefix: LIKE's own characters in it are taken literally.
            sql.append(" AND starts_with(reason, ?)");
            values.add(reason);
        }
        if (recordedFrom != null) {
            sql.append(" AND recorded_at >= ?");
            values.add(Timestamp.from(recordedFrom));
        }
        if (recordedTo != null) {
            sql.append(" AND recorded_at < ?");
            values.add(Timestamp.from(recordedTo));
        }
        if (topic != null) {
            sql.append(" AND topic = ?");
            values.add(topic);
        }
        if (partition != null) {
            sql.append(" AND kafka_partition = ?");
            values.add(partition);
        }
        if (offsetFrom != null) {
            sql.append(" AND kafka_offset >= ?");
            values.add(offsetFrom);
        }
        if (offsetTo != null) {
            sql.append(" AND kafka_offset <= ?");
            values.add(offsetTo);
        }
        sql.append(" ORDER BY topic, kafka_partition, kafka_offset");
        PreparedStatement statement = connection.prepareStatement(sql.toString());
        for (int i = 0; i < values.size(); i++) {
            statement.setObject(i + 1, values.get(i));
        }
        return statement;
    }
}
