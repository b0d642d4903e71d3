package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.AttemptId;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.RunLineage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The SQL of a conditional takeover, run inside its transaction: {@code sink_fences} (who owns each
 * key group, with the attempt that took it), {@code sink_progress} (what each run committed),
 * {@code sink_superseded_runs} (runs a later deployment took over from), {@code sink_live_deletes}
 * and {@code sink_savepoint_barriers}.
 */
final class FenceRows {

    private FenceRows() {}

    /**
     * Locks the range's fence rows and reads the range's record for {@code claim}; {@code
     * rowTables} are the live, staged and committed tables, any of which can hold another run's
     * rows; the live table comes first, so a range with live rows costs one query, as before.
     */
    static RangeRecord read(
            Connection c, String table, List<String> rowTables, KeyGroupSpan span, Claim claim)
            throws SQLException {
        String run = claim.run();
        Set<RangeOwner> owners = new HashSet<>();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT owner_job, owner_task, owner_subtask, owner_parallelism,"
                                + " owner_attempt, owner_restored, owner_graph, owner_barrier"
                                + " FROM sink_fences"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ? FOR UPDATE")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    long restored = rs.getObject(6) == null ? RangeOwner.UNKNOWN : rs.getLong(6);
                    owners.add(
                            new RangeOwner(
                                    new AttemptId(
                                            rs.getString(1),
                                            rs.getString(2),
                                            intOrUnknown(rs, 3),
                                            intOrUnknown(rs, 4),
                                            intOrUnknown(rs, 5),
                                            rs.getString(7) == null ? "" : rs.getString(7)),
                                    restored,
                                    rs.getObject(8) == null ? restored : rs.getLong(8)));
                }
            }
        }
        long committedByRun;
        long lastCommitted;
        Set<RunLineage> committedLineages = new HashSet<>();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT coalesce(max(checkpoint_id) FILTER (WHERE committed_run = ?), 0),"
                                + " coalesce(max(checkpoint_id), 0),"
                                + " coalesce(array_remove(array_agg(DISTINCT committed_lineage),"
                                + " NULL), '{}')"
                                + " FROM sink_progress"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?")) {
            s.setString(1, run);
            s.setString(2, table);
            s.setInt(3, span.first());
            s.setInt(4, span.last());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                committedByRun = rs.getLong(1);
                lastCommitted = rs.getLong(2);
                for (String lineage : (String[]) rs.getArray(3).getArray()) {
                    committedLineages.add(RunLineage.parse(lineage));
                }
            }
        }
        long durableThrough = durableThrough(c, table, span, claim);
        boolean superseded;
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT EXISTS (SELECT 1 FROM sink_superseded_runs"
                                + " WHERE sink_table = ? AND run = ?)")) {
            s.setString(1, table);
            s.setString(2, run);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                superseded = rs.getBoolean(1);
            }
        }
        boolean hasRows = anyRowIn(c, rowTables, span);
        long newestDeletion;
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT coalesce(max(barrier_tag), 0) FROM sink_live_deletes"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                newestDeletion = rs.getLong(1);
            }
        }
        return new RangeRecord(
                owners,
                committedByRun,
                lastCommitted,
                durableThrough,
                superseded,
                hasRows,
                newestDeletion,
                committedLineages,
                SavepointBarriers.erasedAt(c, table, span, claim),
                newestRepair(c, table, span));
    }

    /**
     * The oldest checkpoint each key group of the range proves durable (see {@link
     * RangeRecord#durableThrough}): its commit (or acknowledged savepoint), or the barrier its
     * fence owner recorded after its start, whichever is newer; 0 if a key group proves none. Only
     * the run that took the restored checkpoint or the claimant's own run counts (for a state that
     * does not name its run, a commit of a run that named no lineage either; never an unnamed run's
     * barrier).
     */
    private static long durableThrough(Connection c, String table, KeyGroupSpan span, Claim claim)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT coalesce(min(GREATEST("
                                + " CASE WHEN (? = '' AND coalesce(p.committed_lineage, '') = '')"
                                + " OR p.committed_run IN (?, ?)"
                                + " THEN LEAST(GREATEST(p.checkpoint_id, p.acknowledged_savepoint),"
                                + " p.proof_capped_at) END,"
                                + " CASE WHEN f.owner_job IN (?, ?)"
                                + " AND f.owner_barrier > f.owner_restored"
                                + " THEN f.owner_barrier END, 0)), 0)"
                                + " FROM generate_series(?, ?) AS g"
                                + " LEFT JOIN sink_progress p"
                                + " ON p.sink_table = ? AND p.key_group = g"
                                + " LEFT JOIN sink_fences f"
                                + " ON f.sink_table = ? AND f.key_group = g")) {
            s.setString(1, claim.restoredRun());
            s.setString(2, claim.restoredRun());
            s.setString(3, claim.run());
            s.setString(4, claim.restoredRun());
            s.setString(5, claim.run());
            s.setInt(6, span.first());
            s.setInt(7, span.last());
            s.setString(8, table);
            s.setString(9, table);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Takes the range for {@code claim} with a new token, bigger than any before, and the writer id
     * {@code writer} (whose count of write transactions starts at 0), marks every other run that
     * owned key groups of it as superseded, and drops the counts of the writers it displaces (a
     * writer that loses one key group is fenced from all of its range). Returns the token.
     */
    static long take(Connection c, String table, KeyGroupSpan span, Claim claim, String writer)
            throws SQLException {
        long token;
        try (PreparedStatement s = c.prepareStatement("SELECT nextval('sink_fence_token')");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            token = rs.getLong(1);
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_superseded_runs (sink_table, run, superseded_by)"
                                + " SELECT DISTINCT ?, owner_job, ? FROM sink_fences"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " AND owner_job <> ? ON CONFLICT DO NOTHING")) {
            s.setString(1, table);
            s.setString(2, claim.run());
            s.setString(3, table);
            s.setInt(4, span.first());
            s.setInt(5, span.last());
            s.setString(6, claim.run());
            s.executeUpdate();
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
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_fences (sink_table, key_group, owner_token, owner_job,"
                                + " owner_task, owner_subtask, owner_parallelism, owner_attempt,"
                                + " owner_restored, owner_graph, owner_barrier, owner_writer,"
                                + " taken_at)"
                                + " SELECT ?, g, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now()"
                                + " FROM generate_series(?, ?) AS g"
                                + " ON CONFLICT (sink_table, key_group) DO UPDATE"
                                + " SET owner_token = EXCLUDED.owner_token,"
                                + " owner_job = EXCLUDED.owner_job,"
                                + " owner_task = EXCLUDED.owner_task,"
                                + " owner_subtask = EXCLUDED.owner_subtask,"
                                + " owner_parallelism = EXCLUDED.owner_parallelism,"
                                + " owner_attempt = EXCLUDED.owner_attempt,"
                                + " owner_restored = EXCLUDED.owner_restored,"
                                + " owner_graph = EXCLUDED.owner_graph,"
                                + " owner_barrier = EXCLUDED.owner_barrier,"
                                + " owner_writer = EXCLUDED.owner_writer,"
                                + " taken_at = EXCLUDED.taken_at")) {
            s.setString(1, table);
            s.setLong(2, token);
            s.setString(3, claim.run());
            s.setString(4, claim.task());
            s.setInt(5, claim.subtask());
            s.setInt(6, claim.parallelism());
            s.setInt(7, claim.attempt());
            s.setLong(8, claim.restoredOrZero());
            s.setString(9, claim.graph());
            s.setLong(10, claim.restoredOrZero());
            s.setString(11, writer);
            s.setInt(12, span.first());
            s.setInt(13, span.last());
            s.executeUpdate();
        }
        capOtherRunsProof(c, table, span, claim);
        SavepointBarriers.takenBy(c, table, span, claim);
        return token;
    }

    /** The newest checkpoint a restore of the range repaired from state ({@code sink_repairs}). */
    private static long newestRepair(Connection c, String table, KeyGroupSpan span)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT coalesce(max(restored_checkpoint), 0) FROM sink_repairs"
                                + " WHERE sink_table = ? AND key_group_first <= ?"
                                + " AND key_group_last >= ?")) {
            s.setString(1, table);
            s.setInt(2, span.last());
            s.setInt(3, span.first());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Caps what another run's commit in the range proves at the checkpoint {@code claim} restored:
     * the claimant writes from there on (tags {@code c} and later, its flush's deletions under
     * {@code c - 1}) before its own first commit, and a cut can stop it part-way. A later restore
     * of a newer checkpoint of that run must not take the commit for proof that the rows tagged
     * below it are that run's.
     */
    private static void capOtherRunsProof(
            Connection c, String table, KeyGroupSpan span, Claim claim) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "UPDATE sink_progress SET proof_capped_at = LEAST(proof_capped_at, ?)"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " AND committed_run IS DISTINCT FROM ?")) {
            s.setLong(1, claim.restoredOrZero());
            s.setString(2, table);
            s.setInt(3, span.first());
            s.setInt(4, span.last());
            s.setString(5, claim.run());
            s.executeUpdate();
        }
    }

    /** Whether any of {@code tables} holds a row in the range; the first is asked first. */
    private static boolean anyRowIn(Connection c, List<String> tables, KeyGroupSpan span)
            throws SQLException {
        for (String table : tables) {
            try (PreparedStatement s =
                    c.prepareStatement(
                            "SELECT EXISTS (SELECT 1 FROM "
                                    + table
                                    + " WHERE key_group BETWEEN ? AND ?)")) {
                s.setInt(1, span.first());
                s.setInt(2, span.last());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static int intOrUnknown(ResultSet rs, int column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? RangeOwner.UNKNOWN : value;
    }
}
