package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.StagedDiscard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The statements a restore runs over a range's rows by their tags: the keys tagged since a
 * checkpoint, and live rows set back from the committed table. Built on {@link RowStatements}'
 * validated columns.
 */
final class RestoreStatements<K, V> {

    private final RowStatements<K, V> rows;

    RestoreStatements(RowStatements<K, V> rows) {
        this.rows = rows;
    }

    /**
     * Deletes the staged rows of {@code span} that {@code discard} discards: after its checkpoint,
     * and after its suspicion unless a run of the lineage staged them within its window (a row that
     * names no run is in no window). Returns how many.
     */
    int discardStaged(Connection c, String staged, KeyGroupSpan span, StagedDiscard discard)
            throws SQLException {
        List<StagedDiscard.LineageWindow> windows = discard.lineage();
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM "
                                + staged
                                + " t WHERE t.key_group BETWEEN ? AND ? AND (t.checkpoint_id > ?"
                                + " OR (t.checkpoint_id > ? AND NOT EXISTS (SELECT 1 FROM"
                                + " unnest(?::text[], ?::bigint[], ?::bigint[]) AS w(run, after,"
                                + " through) WHERE t.staged_by = w.run AND t.checkpoint_id >"
                                + " w.after AND t.checkpoint_id <= w.through)))")) {
            s.setInt(1, span.first());
            s.setInt(2, span.last());
            s.setLong(3, discard.checkpoint());
            s.setLong(4, discard.suspectAfter());
            s.setArray(
                    5,
                    c.createArrayOf(
                            "text",
                            windows.stream().map(StagedDiscard.LineageWindow::run).toArray()));
            s.setArray(
                    6,
                    c.createArrayOf(
                            "bigint",
                            windows.stream().map(StagedDiscard.LineageWindow::after).toArray()));
            s.setArray(
                    7,
                    c.createArrayOf(
                            "bigint",
                            windows.stream().map(StagedDiscard.LineageWindow::through).toArray()));
            return s.executeUpdate();
        }
    }

    /**
     * Sets the row in {@code live} of each of {@code among} whose row in {@code committed} (in
     * {@code span}) belongs to checkpoint {@code through} or an earlier one to that row's value,
     * tagged {@code tag}; returns those keys.
     */
    List<K> liveFromCommitted(
            Connection c,
            String live,
            String committed,
            Collection<K> among,
            long through,
            long tag,
            KeyGroupSpan span)
            throws SQLException {
        String sql =
                "INSERT INTO "
                        + live
                        + " ("
                        + rows.columnList()
                        + ", barrier_tag, key_group, written_at) SELECT "
                        + rows.columns().stream()
                                .map(col -> "t." + col.name())
                                .collect(Collectors.joining(", "))
                        + ", ?, t.key_group, now() FROM "
                        + committed
                        + " t JOIN "
                        + rows.keyArrays().unnested()
                        + " ON true"
                        + rows.keyArrays().matching("t")
                        + " WHERE t.key_group BETWEEN ? AND ? AND t.checkpoint_id <= ?"
                        + " ON CONFLICT ("
                        + rows.keyList()
                        + ") DO UPDATE SET "
                        + rows.valuesFromExcluded()
                        + "barrier_tag = EXCLUDED.barrier_tag, key_group = EXCLUDED.key_group,"
                        + " written_at = now() RETURNING "
                        + rows.keyList();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, tag);
            int next = rows.keyArrays().bind(c, s, 2, among);
            s.setInt(next, span.first());
            s.setInt(next + 1, span.last());
            s.setLong(next + 2, through);
            List<K> restored = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    restored.add(rows.mapping().readKey(rs, 1));
                }
            }
            return restored;
        }
    }

    /**
     * The keys of {@code table} in {@code span} whose {@code tagColumn} is at least {@code from};
     * shaped for a ({@code tagColumn}, key_group) index: a range on its first column.
     */
    List<K> keysFrom(Connection c, String table, String tagColumn, long from, KeyGroupSpan span)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT "
                                + rows.keyList()
                                + " FROM "
                                + table
                                + " WHERE "
                                + tagColumn
                                + " >= ? AND key_group BETWEEN ? AND ?")) {
            s.setLong(1, from);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            List<K> found = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    found.add(rows.mapping().readKey(rs, 1));
                }
            }
            return found;
        }
    }
}
