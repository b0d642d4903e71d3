package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.AttemptId;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.RunLineage;
import io.effonce.sink.internal.TakeoverTerms;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The SQL of a conditional takeover, run inside its transaction: {@code sink_fences} (who owns each
 * key group, with the attempt that took it), {@code sink_progress} (what each run committed),
 * {@code sink_live_deletes}; what the range proves is {@link ProofRows}' and {@link
 * SavepointBarriers}', and whether a later deployment superseded the claimant's run {@link
 * SupersededRuns}'.
 */
final class FenceRows {

    private FenceRows() {}

    /**
     * Serializes with every other takeover of the table, locks the range's fence rows and reads the
     * range's record for {@code claim}; {@code rowTables} are the live, staged and committed
     * tables, any of which can hold another run's rows; the live table comes first, so a range with
     * live rows costs one query, as before.
     */
    static RangeRecord read(
            Connection c, String table, List<String> rowTables, KeyGroupSpan span, Claim claim)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
            s.setString(1, "sink_fences:" + table);
            s.execute();
        }
        String run = claim.run();
        Set<RangeOwner> owners = new HashSet<>();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT owner_job, owner_task, owner_subtask, owner_parallelism,"
                                + " owner_attempt, owner_restored, owner_graph, owner_barrier,"
                                + " owner_suspect_from FROM sink_fences"
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
                                    rs.getObject(8) == null ? restored : rs.getLong(8),
                                    rs.getObject(9) == null
                                            ? RangeOwner.NO_SUSPICION
                                            : rs.getLong(9)));
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
        long durableThrough = ProofRows.durableThrough(c, table, span, claim);
        boolean superseded = SupersededRuns.superseded(c, table, run);
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
                ProofRows.newestRepair(c, table, span, claim),
                LeaseRows.read(c, table, span),
                SupersededRuns.laterDeployment(c, table, claim));
    }

    /**
     * Takes the range for {@code claim} with a new token, bigger than any before, and the writer id
     * {@code writer} (whose count of write transactions starts at 0), marks every other run that
     * owned key groups of it as superseded, and drops the counts of the writers it displaces (a
     * writer that loses one key group is fenced from all of its range). Returns the token.
     */
    static long take(
            Connection c,
            String table,
            KeyGroupSpan span,
            Claim claim,
            RangeRecord found,
            TakeoverTerms terms,
            String writer)
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
        if (terms.revokesProof()) {
            ProofRows.revoke(c, table, span);
        }
        WriteCount.takenOver(c, table, span, writer);
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_fences (sink_table, key_group, owner_token, owner_job,"
                                + " owner_task, owner_subtask, owner_parallelism, owner_attempt,"
                                + " owner_restored, owner_graph, owner_barrier, owner_writer,"
                                + " owner_suspect_from, taken_at, owner_seen_at, owner_writes)"
                                + " SELECT ?, g, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now(), now(), 0"
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
                                + " owner_suspect_from = EXCLUDED.owner_suspect_from,"
                                + " taken_at = EXCLUDED.taken_at,"
                                + " owner_seen_at = EXCLUDED.owner_seen_at,"
                                + " owner_writes = EXCLUDED.owner_writes")) {
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
            long suspectFrom = RangeOwner.taking(claim, found).suspectFrom();
            if (suspectFrom == RangeOwner.NO_SUSPICION) {
                s.setNull(12, Types.BIGINT);
            } else {
                s.setLong(12, suspectFrom);
            }
            s.setInt(13, span.first());
            s.setInt(14, span.last());
            s.executeUpdate();
        }
        ProofRows.capOtherRuns(c, table, span, claim);
        SavepointBarriers.takenBy(c, table, span, claim);
        return token;
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
