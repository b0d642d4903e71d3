package io.effonce.sink.testutils;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.RowMapping;
import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads {@code merchant_daily_totals} in tests, as a dashboard would, with keys of type {@code K}
 * read by the mapping the sink writes with.
 */
public final class TotalsTable<K> {

    private final PostgresEndpoint db;
    private final RowMapping<K, ?> mapping;
    private final String keys;

    public TotalsTable(PostgresEndpoint db, RowMapping<K, ?> mapping) {
        this.db = db;
        this.mapping = mapping;
        this.keys =
                String.join(", ", mapping.keyColumns().stream().map(col -> col.name()).toList());
    }

    /** The deployed table, emptied, read with the sink tests' own key and value. */
    public static TotalsTable<TestKey> emptied(PostgresEndpoint db) {
        TotalsTable<TestKey> table = new TotalsTable<>(db, TestRows.MAPPING);
        table.truncate();
        return table;
    }

    /** The store's settings for this table, as the test database's owner. */
    public PostgresStoreConfig config() {
        return PostgresStoreConfig.builder()
                .url(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .table("merchant_daily_totals")
                .build();
    }

    public void truncate() {
        execute(
                "TRUNCATE merchant_daily_totals, merchant_daily_totals_staged,"
                        + " merchant_daily_totals_committed, sink_fences, sink_progress,"
                        + " sink_superseded_runs, sink_writers, sink_repairs, sink_live_deletes,"
                        + " sink_savepoint_barriers, sink_restart_gaps,"
                        + " merchant_daily_totals_recount,"
                        + " recounted_days");
    }

    /** total_minor of every key. */
    public Map<K, Long> totals() {
        return column("total_minor", "merchant_daily_totals", Long.class);
    }

    /** total_minor of every key in the committed table. */
    public Map<K, Long> committed() {
        return column("total_minor", "merchant_daily_totals_committed", Long.class);
    }

    /** The checkpoint each committed value is from. */
    public Map<K, Long> committedCheckpoints() {
        return column("checkpoint_id", "merchant_daily_totals_committed", Long.class);
    }

    /** total_minor of every key the recount published. */
    public Map<K, Long> recount() {
        return column("total_minor", "merchant_daily_totals_recount", Long.class);
    }

    /** day_final of every key in the view {@code merchant_daily_totals_final}. */
    public Map<K, Boolean> finalDays() {
        return column("day_final", "merchant_daily_totals_final", Boolean.class);
    }

    /** One column of every row of {@code tableName}, by key, in the keys' text order. */
    private <T> Map<K, T> column(String column, String tableName, Class<T> type) {
        Map<K, T> values = new TreeMap<>(java.util.Comparator.comparing(Object::toString));
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT " + keys + ", " + column + " FROM " + tableName)) {
            while (rs.next()) {
                values.put(mapping.readKey(rs, 1), rs.getObject(width() + 1, type));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return values;
    }

    /** A row of the view {@code committed_progress}. */
    public record CommittedProgress(
            long checkpointId,
            OffsetDateTime completeThrough,
            LocalDate finalThrough,
            Long lastRestoredCheckpoint,
            String dayZone) {}

    /** The view {@code committed_progress} for merchant_daily_totals. */
    public CommittedProgress progress() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT checkpoint_id, complete_through, final_through,"
                                        + " last_restored_checkpoint, day_zone FROM committed_progress"
                                        + " WHERE sink_table = 'merchant_daily_totals'")) {
            if (!rs.next()) {
                throw new AssertionError("committed_progress has no row for merchant_daily_totals");
            }
            return new CommittedProgress(
                    rs.getLong(1),
                    rs.getObject(2, OffsetDateTime.class),
                    rs.getObject(3, LocalDate.class),
                    rs.getObject(4, Long.class),
                    rs.getString(5));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public long tagOf(K key) {
        String where =
                String.join(
                        " AND ",
                        mapping.keyColumns().stream().map(col -> col.name() + " = ?").toList());
        try (Connection c = db.connect();
                PreparedStatement s =
                        c.prepareStatement(
                                "SELECT barrier_tag FROM merchant_daily_totals WHERE " + where)) {
            for (int i = 0; i < width(); i++) {
                s.setObject(i + 1, mapping.keyColumn(key, i));
            }
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError("no row for " + key);
                }
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A row the sink quarantined in {@code dead_letters}. */
    public record Quarantined(String reason, String rawValue) {}

    /** The rows this sink quarantined in {@code dead_letters}, by reason. */
    public List<Quarantined> quarantined() {
        List<Quarantined> rows = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT reason, raw_value FROM dead_letters"
                                        + " WHERE topic = 'merchant_daily_totals' ORDER BY reason")) {
            while (rs.next()) {
                rows.add(new Quarantined(rs.getString(1), rs.getString(2)));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /**
     * Everything the sink keeps about the table, row by row and in a fixed order: live, staged and
     * committed values with their tags, the fence, the progress and the superseded runs. Two equal
     * dumps mean nothing the sink owns changed in between.
     */
    public String dump() {
        StringBuilder out = new StringBuilder();
        for (String query :
                List.of(
                        "SELECT merchant_id, day, currency, total_minor, payments, barrier_tag,"
                                + " key_group, written_at FROM merchant_daily_totals ORDER BY 1, 2, 3",
                        "SELECT * FROM merchant_daily_totals_staged ORDER BY 1, 2, 3, 4",
                        "SELECT * FROM merchant_daily_totals_committed ORDER BY 1, 2, 3",
                        "SELECT * FROM sink_fences ORDER BY 1, 2",
                        "SELECT * FROM sink_progress ORDER BY 1, 2",
                        "SELECT * FROM sink_superseded_runs ORDER BY 1, 2")) {
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(query)) {
                out.append(query).append('\n');
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= columns; i++) {
                        out.append(rs.getString(i)).append(i < columns ? " | " : "\n");
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        return out.toString();
    }

    private int width() {
        return mapping.keyColumns().size();
    }

    public void execute(String sql) {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
