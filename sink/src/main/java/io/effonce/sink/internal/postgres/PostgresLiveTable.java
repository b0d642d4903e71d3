package io.effonce.sink.internal.postgres;

import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.LiveTable;
import io.effonce.sink.internal.StoredRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The live totals table in PostgreSQL. Writes are one {@code INSERT ... SELECT FROM unnest(...) ON
 * CONFLICT DO UPDATE} per batch, so a batch is one statement; each opens with the fence's check.
 */
final class PostgresLiveTable<K, V> implements LiveTable<K, V> {

    /** Longest reason or raw value a quarantined row keeps. */
    private static final int QUARANTINE_MAX_CHARS = 4096;

    private final String table;
    private final RowStatements<K, V> rows;
    private final RestoreStatements<K, V> restores;
    private final RetryingSession session;
    private final PostgresFence fence;

    PostgresLiveTable(
            String table, RowStatements<K, V> rows, RetryingSession session, PostgresFence fence) {
        this.table = table;
        this.rows = rows;
        this.restores = new RestoreStatements<>(rows);
        this.session = session;
        this.fence = fence;
    }

    @Override
    public void write(List<StoredRow<K, V>> batch) {
        if (batch.isEmpty()) {
            return;
        }
        batch.forEach(row -> fence.requireOwned(row.keyGroup()));
        fence.guarded(
                "Writing " + batch.size() + " rows to " + table,
                c -> {
                    return rows.upsert(
                            c, table, "barrier_tag", "written_at", rows.keyList(), batch);
                });
    }

    /**
     * One {@code dead_letters} row per refused key: topic is this table's name, partition the key
     * group, offset a stable 63-bit hash of the key (so the same key quarantined again, after a
     * restore, adds nothing); the reason carries the SQLSTATE and the database's message, the raw
     * value the key, the value and the barrier tag, cut to {@link #QUARANTINE_MAX_CHARS}.
     */
    @Override
    public void quarantine(StoredRow<K, V> row, String sqlState, String message) {
        String reason = "sink-refused: SQLSTATE " + sqlState + ": " + message;
        String raw =
                "key="
                        + row.key()
                        + " value="
                        + row.value()
                        + " barrier_tag="
                        + row.barrierTag()
                        + " key_group="
                        + row.keyGroup();
        session.inTransaction(
                "Quarantining a refused row of " + table,
                c -> {
                    try (PreparedStatement s =
                            c.prepareStatement(
                                    "INSERT INTO dead_letters (topic, kafka_partition,"
                                            + " kafka_offset, reason, raw_value)"
                                            + " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
                        s.setString(1, table);
                        s.setInt(2, row.keyGroup());
                        s.setLong(3, stableHash(row.key().toString()));
                        s.setString(4, storable(reason));
                        s.setString(5, storable(raw));
                        s.executeUpdate();
                    }
                    return null;
                });
    }

    /** Cut, NUL-free and valid UTF-16, so the dead letter itself can always be written. */
    private static String storable(String text) {
        String cut =
                text.length() <= QUARANTINE_MAX_CHARS
                        ? text
                        : text.substring(0, QUARANTINE_MAX_CHARS);
        StringBuilder b = new StringBuilder(cut.length());
        for (int i = 0; i < cut.length(); i++) {
            char ch = cut.charAt(i);
            boolean pair =
                    Character.isHighSurrogate(ch)
                            && i + 1 < cut.length()
                            && Character.isLowSurrogate(cut.charAt(i + 1));
            if (pair) {
                b.append(ch).append(cut.charAt(++i));
            } else {
                b.append(ch == 0 || Character.isSurrogate(ch) ? '\uFFFD' : ch);
            }
        }
        return b.toString();
    }

    /** FNV-1a over the UTF-16 chars, made non-negative: the same key always gives the same id. */
    private static long stableHash(String key) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < key.length(); i++) {
            h ^= key.charAt(i);
            h *= 0x100000001b3L;
        }
        return h & Long.MAX_VALUE;
    }

    @Override
    public List<K> keysTaggedSince(long tag) {
        KeyGroupSpan span = fence.span();
        return session.inTransaction(
                "Reading the tag index of " + table,
                c -> restores.keysFrom(c, table, "barrier_tag", tag, span));
    }

    @Override
    public void delete(List<StoredRow<K, V>> tombstones) {
        if (tombstones.isEmpty()) {
            return;
        }
        tombstones.forEach(row -> fence.requireOwned(row.keyGroup()));
        List<K> keys = tombstones.stream().map(StoredRow::key).toList();
        fence.guarded(
                "Deleting " + keys.size() + " rows of " + table,
                c -> {
                    recordDeletions(c, tombstones);
                    return rows.delete(c, table, keys, fence.span());
                });
    }

    /**
     * Records in {@code sink_live_deletes}, per key group of {@code tombstones}, the newest tag
     * under which a live row of this table was deleted.
     */
    private void recordDeletions(Connection c, List<StoredRow<K, V>> tombstones)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_live_deletes AS d (sink_table, key_group, barrier_tag)"
                                + " SELECT ?, g, max(tag) FROM unnest(?::int[], ?::bigint[])"
                                + " AS u(g, tag) GROUP BY g ON CONFLICT (sink_table, key_group)"
                                + " DO UPDATE SET barrier_tag = GREATEST(d.barrier_tag,"
                                + " EXCLUDED.barrier_tag), deleted_at = now()")) {
            s.setString(1, table);
            s.setObject(2, RowStatements.keyGroups(tombstones));
            s.setObject(3, RowStatements.tags(tombstones));
            s.executeUpdate();
        }
    }

    /**
     * Deletes this range's live rows and its record of deletions inside the caller's transaction;
     * returns how many rows.
     */
    long deleteRange(Connection c) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM sink_live_deletes WHERE sink_table = ?"
                                + " AND key_group BETWEEN ? AND ?")) {
            s.setString(1, table);
            s.setInt(2, fence.span().first());
            s.setInt(3, fence.span().last());
            s.executeUpdate();
        }
        return SpanDelete.rows(c, table, fence.span(), "");
    }
}
