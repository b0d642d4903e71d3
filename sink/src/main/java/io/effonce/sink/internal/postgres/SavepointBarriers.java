package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * {@code sink_savepoint_barriers} and {@code sink_restart_gaps}: the savepoint barriers each key
 * group's owners passed, and which of them a later restore of an older checkpoint erased, in the
 * caller's transaction.
 *
 * <p>A savepoint is acknowledged, never committed, because Flink may still restore the checkpoint
 * before it by itself. When it does, the run goes on from that checkpoint on another branch: its
 * later barriers, commits and writes carry ids past the savepoint's but hold none of its writes. A
 * deployment from the savepoint must know that, or those ids pass for proof that the table holds
 * the savepoint's writes (and the rows the other branch tagged below the savepoint stay).
 */
final class SavepointBarriers {

    private SavepointBarriers() {}

    /** Records that {@code run} passed savepoint {@code savepointId}'s barrier in {@code span}. */
    static void record(Connection c, String table, KeyGroupSpan span, String run, long savepointId)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_savepoint_barriers (sink_table, key_group, run,"
                                + " savepoint) SELECT ?, g, ?, ? FROM generate_series(?, ?) AS g"
                                + " ON CONFLICT DO NOTHING")) {
            s.setString(1, table);
            s.setString(2, run);
            s.setLong(3, savepointId);
            s.setInt(4, span.first());
            s.setInt(5, span.last());
            s.executeUpdate();
        }
    }

    /**
     * Records that an attempt of {@code run} that restored {@code restored} passed its first
     * barrier, {@code firstBarrier}, in {@code span}, when the run handed out ids in between (a
     * negative {@code restored}: not the attempt's first barrier, nothing to record): a checkpoint
     * among them that the run completed before (a savepoint) was erased by this attempt, even if
     * the database went back and forgot that savepoint's barrier ({@code sink_restart_gaps}). In
     * the transaction that records the barrier: the barrier proves nothing without it.
     */
    static void recordRestartGap(
            Connection c,
            String table,
            KeyGroupSpan span,
            String run,
            long restored,
            long firstBarrier)
            throws SQLException {
        if (restored < 0 || firstBarrier <= restored + 1) {
            return;
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_restart_gaps (sink_table, key_group_first, key_group_last,"
                                + " run, restored_checkpoint, first_barrier)"
                                + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sink_table,"
                                + " key_group_first, key_group_last, run, restored_checkpoint)"
                                + " DO UPDATE SET first_barrier = GREATEST("
                                + "sink_restart_gaps.first_barrier, EXCLUDED.first_barrier)")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            s.setString(4, run);
            s.setLong(5, restored);
            s.setLong(6, firstBarrier);
            s.executeUpdate();
        }
    }

    /**
     * At {@code claim}'s takeover: a savepoint of the claim's run, or of the run it restored from,
     * newer than the checkpoint it restored, is erased there; one at or before it is on the
     * restored branch and no longer needs a row.
     */
    static void takenBy(Connection c, String table, KeyGroupSpan span, Claim claim)
            throws SQLException {
        long restored = claim.restoredOrZero();
        try (PreparedStatement s =
                c.prepareStatement(
                        "UPDATE sink_savepoint_barriers SET erased_at = LEAST(erased_at, ?)"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " AND run IN (?, ?) AND savepoint > ?")) {
            s.setLong(1, restored);
            s.setString(2, table);
            s.setInt(3, span.first());
            s.setInt(4, span.last());
            s.setString(5, claim.run());
            s.setString(6, claim.restoredRun());
            s.setLong(7, restored);
            s.executeUpdate();
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM sink_savepoint_barriers"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " AND run IN (?, ?) AND savepoint <= ? AND erased_at IS NULL")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            s.setString(4, claim.run());
            s.setString(5, claim.restoredRun());
            s.setLong(6, restored);
            s.executeUpdate();
        }
    }

    /**
     * The oldest checkpoint at which the savepoint {@code claim} restores was erased in {@code
     * span}, if it was: by a takeover that marked its barrier's row, or by an attempt of its run
     * that restored below it and whose first barrier was above it.
     */
    static OptionalLong erasedAt(Connection c, String table, KeyGroupSpan span, Claim claim)
            throws SQLException {
        if (claim.restoredCheckpoint().isEmpty() || claim.restoredRun().isEmpty()) {
            return OptionalLong.empty();
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT min(erased) FROM (SELECT erased_at AS erased"
                                + " FROM sink_savepoint_barriers"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " AND run = ? AND savepoint = ?"
                                + " UNION ALL SELECT restored_checkpoint FROM sink_restart_gaps"
                                + " WHERE sink_table = ? AND key_group_first <= ?"
                                + " AND key_group_last >= ? AND run = ?"
                                + " AND restored_checkpoint < ? AND first_barrier > ?) e")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            s.setString(4, claim.restoredRun());
            s.setLong(5, claim.restoredCheckpoint().getAsLong());
            s.setString(6, table);
            s.setInt(7, span.last());
            s.setInt(8, span.first());
            s.setString(9, claim.restoredRun());
            s.setLong(10, claim.restoredCheckpoint().getAsLong());
            s.setLong(11, claim.restoredCheckpoint().getAsLong());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                long erasedAt = rs.getLong(1);
                return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(erasedAt);
            }
        }
    }

    /**
     * A reset: the range's rows go with the rest of its record, but for the erased ones. A run that
     * restarts without state after a savepoint erases it, resets the range, and goes on: a
     * deployment from that savepoint must still learn that the run's writes since are another
     * branch's.
     */
    static void deleteRange(Connection c, String table, KeyGroupSpan span) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM sink_savepoint_barriers"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " AND erased_at IS NULL")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            s.executeUpdate();
        }
    }
}
