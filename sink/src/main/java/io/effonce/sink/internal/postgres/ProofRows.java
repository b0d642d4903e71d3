package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What a range's rows prove about the writes before a barrier, read and capped in the takeover's
 * transaction: {@code sink_progress}'s commits and caps, {@code sink_fences}' recorded barriers and
 * {@code sink_repairs}. A restore that finds the proof flushes only what changed since its
 * checkpoint; without it, it repairs the range from state (see {@code RestoreFlush}).
 */
final class ProofRows {

    private ProofRows() {}

    /**
     * The oldest checkpoint each key group of the range proves durable (see {@link
     * RangeRecord#durableThrough}): its commit (or acknowledged savepoint), or the barrier its
     * fence owner recorded after its start, whichever is newer; 0 if a key group proves none. Only
     * the run that took the restored checkpoint or the claimant's own run counts (for a state that
     * does not name its run, a commit of a run that named no lineage either; never an unnamed run's
     * barrier).
     */
    static long durableThrough(Connection c, String table, KeyGroupSpan span, Claim claim)
            throws SQLException {
        if (writesLost(c, table, span)) {
            return 0;
        }
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
     * Whether the owner of a key group of the range has fewer write transactions in {@code
     * sink_writers} than its fence row recorded at its last barrier: the writers' counts and the
     * rows went back without the fence and the progress (an operator's partial restore), and what
     * those still record of the range proves writes the database no longer holds. Noticed here even
     * when no writer wrote since to notice it.
     */
    private static boolean writesLost(Connection c, String table, KeyGroupSpan span)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT EXISTS (SELECT 1 FROM sink_fences f LEFT JOIN sink_writers w"
                                + " ON w.sink_table = f.sink_table AND w.writer = f.owner_writer"
                                + " WHERE f.sink_table = ? AND f.key_group BETWEEN ? AND ?"
                                + " AND coalesce(w.writes, -1) < f.owner_writes)")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Records that this range's owners passed barrier {@code checkpointId}: every write before it
     * is in the table, which a restore of it may take for proof, with the writer's count of write
     * transactions then ({@link #writesLost}); and renews their lease. Their restore flush ended
     * before: what they suspected of another lineage is repaired ({@code RangeOwner#suspectFrom}).
     */
    static int recordBarrier(Connection c, String table, KeyGroupSpan span, long checkpointId)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "UPDATE sink_fences f SET owner_barrier = GREATEST(owner_barrier, ?),"
                                + " owner_seen_at = now(), owner_suspect_from = NULL,"
                                + " owner_writes = (SELECT w.writes FROM sink_writers w"
                                + " WHERE w.sink_table = f.sink_table AND w.writer = f.owner_writer)"
                                + " WHERE f.sink_table = ? AND f.key_group BETWEEN ? AND ?")) {
            s.setLong(1, checkpointId);
            s.setString(2, table);
            s.setInt(3, span.first());
            s.setInt(4, span.last());
            return s.executeUpdate();
        }
    }

    /**
     * Revokes what the range's rows prove about the writes before any barrier: every commit's proof
     * is capped at 0 until the next commit (the repair's), and every fence owner's recorded barrier
     * falls back to the checkpoint it restored. A writer that found its acknowledged writes gone
     * calls it: the records that survived speak of writes the database no longer holds.
     */
    static int revoke(Connection c, String table, KeyGroupSpan span) throws SQLException {
        int revoked = 0;
        for (String sql :
                new String[] {
                    "UPDATE sink_progress SET proof_capped_at = 0 WHERE sink_table = ?"
                            + " AND key_group BETWEEN ? AND ?",
                    "UPDATE sink_fences SET owner_barrier = owner_restored WHERE sink_table = ?"
                            + " AND key_group BETWEEN ? AND ?"
                }) {
            try (PreparedStatement s = c.prepareStatement(sql)) {
                s.setString(1, table);
                s.setInt(2, span.first());
                s.setInt(3, span.last());
                revoked += s.executeUpdate();
            }
        }
        return revoked;
    }

    /**
     * The newest checkpoint a restore of the range repaired from state ({@code sink_repairs}), by
     * the claimant's run or the run it restored (or a run not recorded): another run's checkpoint
     * ids are another timeline.
     */
    static long newestRepair(Connection c, String table, KeyGroupSpan span, Claim claim)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT coalesce(max(restored_checkpoint), 0) FROM sink_repairs"
                                + " WHERE sink_table = ? AND key_group_first <= ?"
                                + " AND key_group_last >= ?"
                                + " AND (repaired_run IS NULL OR repaired_run IN (?, ?))")) {
            s.setString(1, table);
            s.setInt(2, span.last());
            s.setInt(3, span.first());
            s.setString(4, claim.run());
            s.setString(5, claim.restoredRun());
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
    static void capOtherRuns(Connection c, String table, KeyGroupSpan span, Claim claim)
            throws SQLException {
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
}
