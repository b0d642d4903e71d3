package io.effonce.it.testutils;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the sink's side of the database: fences, dead letters, late events, row counts. */
public final class SinkTables {

    private final PostgresEndpoint db;

    public SinkTables(PostgresEndpoint db) {
        this.db = db;
    }

    /**
     * How many times a sink subtask took ownership of its key groups (the fencing token sequence):
     * every start and every restore takes a new token, and every restore runs the full flush.
     */
    public long ownershipTakeovers() {
        return number(
                "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM sink_fence_token");
    }

    /** The newest savepoint the sink acknowledged for key groups {@code first} to {@code last}. */
    public long acknowledgedSavepoint(int first, int last) {
        return number(
                "SELECT coalesce(max(acknowledged_savepoint), 0) FROM sink_progress"
                        + " WHERE key_group BETWEEN "
                        + first
                        + " AND "
                        + last);
    }

    /** Dead letters: raw value to reason. */
    public Map<String, String> deadLetters() {
        Map<String, String> rows = new LinkedHashMap<>();
        query(
                "SELECT raw_value, reason FROM dead_letters ORDER BY kafka_partition, kafka_offset",
                rs -> rows.put(rs.getString(1), rs.getString(2)));
        return rows;
    }

    /** Event ids in late_events. */
    public List<String> lateEventIds() {
        List<String> ids = new ArrayList<>();
        query("SELECT event_id FROM late_events", rs -> ids.add(rs.getString(1)));
        return ids;
    }

    /**
     * What late_events holds, for a failure message: how many, the range of their event times and
     * of the watermark and floor they were judged against.
     */
    public String lateEventsSummary() {
        StringBuilder out = new StringBuilder();
        query(
                "SELECT count(*), min(event_time), max(event_time), min(watermark),"
                        + " max(watermark), min(floor), max(floor) FROM late_events",
                rs ->
                        out.append(rs.getLong(1))
                                .append(" rows in late_events, event times ")
                                .append(rs.getString(2))
                                .append(" .. ")
                                .append(rs.getString(3))
                                .append(", judged against watermarks ")
                                .append(rs.getString(4))
                                .append(" .. ")
                                .append(rs.getString(5))
                                .append(" and floors ")
                                .append(rs.getString(6))
                                .append(" .. ")
                                .append(rs.getString(7)));
        return out.toString();
    }

    /** The checkpoint every key group of the merchant table has committed (0: none yet). */
    public long committedCheckpoint() {
        return number(
                "SELECT coalesce(min(checkpoint_id), 0) FROM committed_progress"
                        + " WHERE sink_table = 'merchant_daily_totals'");
    }

    /** The merchant table's last final day (ISO date; null while none is). */
    public String finalThrough() {
        return text(
                "SELECT final_through::text FROM committed_progress"
                        + " WHERE sink_table = 'merchant_daily_totals'");
    }

    public long count(String table) {
        return number("SELECT count(*) FROM " + table);
    }

    /** The first column of the first row of {@code sql}, as a long. */
    public long number(String sql) {
        long[] value = {0};
        query(sql, rs -> value[0] = rs.getLong(1));
        return value[0];
    }

    /** The first column of the first row of {@code sql}, as text ({@code null} if none). */
    public String text(String sql) {
        String[] value = {null};
        query(sql, rs -> value[0] = rs.getString(1));
        return value[0];
    }

    /** Takes {@code eventId}'s row out of late_events. */
    public void deleteLateEvent(String eventId) {
        String sql = "DELETE FROM late_events WHERE event_id = ?";
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, eventId);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Runs a statement that returns nothing. */
    public void execute(String sql) {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Calls {@code row} for every row of {@code sql}. */
    public void query(String sql, RowConsumer row) {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                row.accept(rs);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** One row of a result. */
    @FunctionalInterface
    public interface RowConsumer {
        void accept(ResultSet rs) throws SQLException;
    }
}
