package io.effonce.sink.internal.postgres;

import io.effonce.sink.Column;
import io.effonce.sink.RowMapping;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.StoredRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The statements the three tables of a sink share — live ({@code barrier_tag}), staged and
 * committed ({@code checkpoint_id}) — built from the job's {@link RowMapping}, each a single
 * statement over arrays ({@code unnest}), so a batch of any size is one round trip. Table and
 * column names come from validated configuration and the mapping's validated columns only.
 */
final class RowStatements<K, V> {

    private final RowMapping<K, V> mapping;
    private final List<Column> keys;
    private final List<Column> values;
    private final List<Column> all;
    private final KeyArrays<K> keyArrays;

    RowStatements(RowMapping<K, V> mapping) {
        this.mapping = mapping;
        this.keys = List.copyOf(mapping.keyColumns());
        this.values = List.copyOf(mapping.valueColumns());
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("A sink's row mapping needs a key column");
        }
        List<Column> both = new ArrayList<>(keys);
        both.addAll(values);
        this.all = List.copyOf(both);
        this.keyArrays = new KeyArrays<>(mapping, keys);
    }

    /** The key columns, comma-separated: the tables' primary key. */
    String keyList() {
        return ColumnSql.names(keys);
    }

    /** The key and then the value columns, comma-separated. */
    String columnList() {
        return ColumnSql.names(all);
    }

    /** The key and then the value columns. */
    List<Column> columns() {
        return all;
    }

    RowMapping<K, V> mapping() {
        return mapping;
    }

    /** The keys as bound arrays, for statements over a set of keys. */
    KeyArrays<K> keyArrays() {
        return keyArrays;
    }

    /** {@code AND a.k = b.k} for each key column. */
    String keysEqual(String a, String b) {
        return keys.stream()
                .map(k -> " AND " + a + "." + k.name() + " = " + b + "." + k.name())
                .collect(Collectors.joining());
    }

    /** {@code v = EXCLUDED.v, } for each value column: the head of an upsert's SET list. */
    String valuesFromExcluded() {
        return values.stream()
                .map(v -> v.name() + " = EXCLUDED." + v.name() + ", ")
                .collect(Collectors.joining());
    }

    /**
     * Upserts {@code rows} into {@code table}: each row's tag goes to {@code tagColumn}; {@code
     * conflict} is the table's primary key; {@code timeColumn}, if not null, gets now().
     */
    int upsert(
            Connection c,
            String table,
            String tagColumn,
            String timeColumn,
            String conflict,
            List<StoredRow<K, V>> rows)
            throws SQLException {
        int n = rows.size();
        int width = keys.size() + values.size();
        Object[][] columns = new Object[width][];
        System.arraycopy(keyArrays.columns(keysOf(rows)), 0, columns, 0, keys.size());
        for (int v = 0; v < values.size(); v++) {
            columns[keys.size() + v] = new Object[n];
            for (int i = 0; i < n; i++) {
                columns[keys.size() + v][i] = mapping.valueColumn(rows.get(i).value(), v);
            }
        }
        String time = timeColumn == null ? "" : ", " + timeColumn;
        String timeValue = timeColumn == null ? "" : ", now()";
        String timeSet = timeColumn == null ? "" : ", " + timeColumn + " = now()";
        String sql =
                "INSERT INTO "
                        + table
                        + " ("
                        + ColumnSql.names(all)
                        + ", "
                        + tagColumn
                        + ", key_group"
                        + time
                        + ") SELECT "
                        + ColumnSql.elements(all)
                        + ", tag, g"
                        + timeValue
                        + " FROM unnest("
                        + ColumnSql.arrays(all)
                        + ", ?::bigint[], ?::int[]) AS u("
                        + ColumnSql.aliases(all.size())
                        + ", tag, g) ON CONFLICT ("
                        + conflict
                        + ") DO UPDATE SET "
                        + valuesFromExcluded()
                        + tagColumn
                        + " = EXCLUDED."
                        + tagColumn
                        + ", key_group = EXCLUDED.key_group"
                        + timeSet;
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < width; i++) {
                s.setObject(i + 1, all.get(i).type().bind(c, columns[i]));
            }
            s.setObject(width + 1, tags(rows));
            s.setObject(width + 2, keyGroups(rows));
            return s.executeUpdate();
        }
    }

    /**
     * Stages the deletion of each tombstone's key in {@code staged} at its tag (the checkpoint): a
     * row with {@code deleted} set and no value, which the commit turns into the key's removal.
     */
    int stageTombstones(Connection c, String staged, List<StoredRow<K, V>> tombstones)
            throws SQLException {
        String noValue =
                values.stream().map(v -> v.name() + " = NULL, ").collect(Collectors.joining());
        String sql =
                "INSERT INTO "
                        + staged
                        + " ("
                        + ColumnSql.names(keys)
                        + ", checkpoint_id, key_group, deleted) SELECT "
                        + ColumnSql.elements(keys)
                        + ", tag, g, true FROM unnest("
                        + ColumnSql.arrays(keys)
                        + ", ?::bigint[], ?::int[]) AS u("
                        + ColumnSql.aliases(keys.size())
                        + ", tag, g) ON CONFLICT (checkpoint_id, "
                        + keyList()
                        + ") DO UPDATE SET "
                        + noValue
                        + "deleted = true, key_group = EXCLUDED.key_group";
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int next = keyArrays.bind(c, s, 1, keysOf(tombstones));
            s.setObject(next, tags(tombstones));
            s.setObject(next + 1, keyGroups(tombstones));
            return s.executeUpdate();
        }
    }

    /**
     * Names {@code run} as the stager of these rows staged at {@code checkpointId} ({@link
     * io.effonce.sink.internal.StagedDiscard}), and marks them deletions or values: the upsert of a
     * value over a deletion staged at the same checkpoint leaves the mark alone.
     */
    int markStaged(
            Connection c,
            String staged,
            long checkpointId,
            List<StoredRow<K, V>> batch,
            String run,
            boolean deleted)
            throws SQLException {
        String sql =
                "UPDATE "
                        + staged
                        + " t SET staged_by = ?, deleted = ? FROM "
                        + keyArrays.unnested()
                        + " WHERE t.checkpoint_id = ?"
                        + keyArrays.matching("t");
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, run);
            s.setBoolean(2, deleted);
            int next = keyArrays.bind(c, s, 3, keysOf(batch));
            s.setLong(next, checkpointId);
            return s.executeUpdate();
        }
    }

    /** Deletes these keys' rows from {@code table}, within {@code span}. */
    int delete(Connection c, String table, Collection<K> toDelete, KeyGroupSpan span)
            throws SQLException {
        String sql =
                "DELETE FROM "
                        + table
                        + " t USING "
                        + keyArrays.unnested()
                        + " WHERE t.key_group BETWEEN ? AND ?"
                        + keyArrays.matching("t");
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int next = keyArrays.bind(c, s, 1, toDelete);
            s.setInt(next, span.first());
            s.setInt(next + 1, span.last());
            return s.executeUpdate();
        }
    }

    private List<K> keysOf(List<StoredRow<K, V>> rows) {
        List<K> found = new ArrayList<>(rows.size());
        for (StoredRow<K, V> row : rows) {
            found.add(row.key());
        }
        return found;
    }

    static long[] tags(List<? extends StoredRow<?, ?>> rows) {
        long[] tags = new long[rows.size()];
        for (int i = 0; i < tags.length; i++) {
            tags[i] = rows.get(i).barrierTag();
        }
        return tags;
    }

    static int[] keyGroups(List<? extends StoredRow<?, ?>> rows) {
        int[] groups = new int[rows.size()];
        for (int i = 0; i < groups.length; i++) {
            groups[i] = rows.get(i).keyGroup();
        }
        return groups;
    }
}
