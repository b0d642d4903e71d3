package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.LostWritesException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The write check of one writer ({@code sink_writers}): every write transaction advances the
 * writer's count from the count of the last transaction the database acknowledged to it (or the one
 * after: a commit whose outcome a cut connection hid, retried). A database that went back in time
 * holds less, and the transaction fails with {@link LostWritesException}.
 */
final class WriteCount {

    private final String table;
    private final String writer;

    /** Write transactions of this writer the database acknowledged, counted from its takeover. */
    private long acknowledged;

    WriteCount(String table, String writer) {
        this.table = table;
        this.writer = writer;
    }

    /** A takeover starts the count again (it wrote the writer's row with 0). */
    void restart() {
        acknowledged = 0;
    }

    /** The database acknowledged one more write transaction. */
    void acknowledged() {
        acknowledged++;
    }

    /** Advances the count in the caller's transaction, or fails it: the database lost writes. */
    void advance(Connection c, String where) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "UPDATE sink_writers SET writes = ? WHERE sink_table = ? AND writer = ?"
                                + " AND writes BETWEEN ? AND ?")) {
            s.setLong(1, acknowledged + 1);
            s.setString(2, table);
            s.setString(3, writer);
            s.setLong(4, acknowledged);
            s.setLong(5, acknowledged + 1);
            if (s.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT writes FROM sink_writers WHERE sink_table = ? AND writer = ?")) {
            s.setString(1, table);
            s.setString(2, writer);
            try (ResultSet rs = s.executeQuery()) {
                throw lost(
                        where,
                        rs.next()
                                ? "it holds "
                                        + rs.getLong(1)
                                        + " of the "
                                        + acknowledged
                                        + " write transactions it acknowledged to this writer"
                                : "it holds no record of this writer, which took the range and had "
                                        + acknowledged
                                        + " write transactions acknowledged");
            }
        }
    }

    /** The failure of a writer whose database went back under {@code where}: {@code found}. */
    LostWritesException lost(String where, String found) {
        return new LostWritesException(
                "The sink database went back in time under "
                        + where
                        + ": "
                        + found
                        + ". It lost transactions it had acknowledged, as an asynchronous standby"
                        + " promoted or a restored backup does. The task fails so that Flink"
                        + " restores its last checkpoint; that restore repairs the live and"
                        + " committed tables from state (sink/DATABASE-GOES-BACK.md).");
    }

    /**
     * The writers' side of a takeover of {@code span} by {@code writer}, before its fence rows are
     * written: the counts of the writers it displaces go (a writer that loses one key group is
     * fenced from all of its range), their other key groups' fence rows stop recording a count they
     * no longer have, and {@code writer} starts at 0. Where such a count fell short of what a fence
     * row recorded (writes lost, {@code ProofRows.writesLost}), that evidence would go with it: the
     * key group's proof is revoked first.
     */
    static void takenOver(Connection c, String table, KeyGroupSpan span, String writer)
            throws SQLException {
        // The fence rows outside the span of the writers it displaces, and of those the ones
        // whose writer's count fell short of what they recorded.
        String displacedOutside =
                " f.sink_table = ? AND f.key_group NOT BETWEEN ? AND ? AND f.owner_writer IN"
                        + " (SELECT owner_writer FROM sink_fences WHERE sink_table = ?"
                        + " AND key_group BETWEEN ? AND ?)";
        String lostOutside =
                displacedOutside
                        + " AND coalesce((SELECT w.writes FROM sink_writers w"
                        + " WHERE w.sink_table = f.sink_table AND w.writer = f.owner_writer), -1)"
                        + " < f.owner_writes";
        for (String update :
                new String[] {
                    "UPDATE sink_progress p SET proof_capped_at = 0 FROM sink_fences f"
                            + " WHERE p.sink_table = f.sink_table AND p.key_group = f.key_group"
                            + " AND"
                            + lostOutside,
                    "UPDATE sink_fences f SET owner_barrier = f.owner_restored WHERE" + lostOutside,
                    "UPDATE sink_fences f SET owner_writes = NULL WHERE" + displacedOutside
                }) {
            try (PreparedStatement s = c.prepareStatement(update)) {
                s.setString(1, table);
                s.setInt(2, span.first());
                s.setInt(3, span.last());
                s.setString(4, table);
                s.setInt(5, span.first());
                s.setInt(6, span.last());
                s.executeUpdate();
            }
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM sink_writers WHERE sink_table = ? AND writer IN"
                                + " (SELECT owner_writer FROM sink_fences WHERE sink_table = ?"
                                + " AND key_group BETWEEN ? AND ?)")) {
            s.setString(1, table);
            s.setString(2, table);
            s.setInt(3, span.first());
            s.setInt(4, span.last());
            s.executeUpdate();
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_writers (sink_table, writer, writes) VALUES (?, ?, 0)")) {
            s.setString(1, table);
            s.setString(2, writer);
            s.executeUpdate();
        }
    }
}
