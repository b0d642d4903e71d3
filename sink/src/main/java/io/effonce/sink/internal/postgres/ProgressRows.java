package io.effonce.sink.internal.postgres;

import io.effonce.sink.Progress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * A range's progress in {@code sink_progress}, one row per key group, and its repairs in {@code
 * sink_repairs}: what each commit, savepoint and restore records, in the caller's transaction.
 */
final class ProgressRows {

    private final String table;
    private final PostgresFence fence;

    ProgressRows(String table, PostgresFence fence) {
        this.table = table;
        this.fence = fence;
    }

    /**
     * One row per key group of the range in {@code sink_progress}: the checkpoint, and the
     * watermark and last final day, each the greater of the recorded and the new (a restored run
     * starts without a watermark; its restored checkpoint was complete through the recorded one).
     */
    void recordCommit(Connection c, long checkpointId, Progress progress) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_progress AS p (sink_table, key_group, checkpoint_id,"
                                + " watermark, final_through, day_zone, committed_at, committed_run,"
                                + " horizon, committed_lineage)"
                                + " SELECT ?, g, ?, ?, ?, ?, now(), ?,"
                                + " CAST(? AS BIGINT) * INTERVAL '1 millisecond', ?"
                                + " FROM generate_series(?, ?) AS g"
                                + " ON CONFLICT (sink_table, key_group) DO UPDATE"
                                + " SET checkpoint_id = EXCLUDED.checkpoint_id,"
                                + " committed_run = EXCLUDED.committed_run,"
                                + " committed_lineage = CASE WHEN p.committed_lineage IS DISTINCT"
                                + " FROM EXCLUDED.committed_lineage THEN EXCLUDED.committed_lineage"
                                + " ELSE p.committed_lineage END,"
                                + " acknowledged_savepoint = CASE WHEN p.committed_run"
                                + " = EXCLUDED.committed_run THEN p.acknowledged_savepoint END,"
                                + " watermark = GREATEST(p.watermark, EXCLUDED.watermark),"
                                + " final_through = GREATEST(p.final_through, EXCLUDED.final_through),"
                                + " day_zone = COALESCE(EXCLUDED.day_zone, p.day_zone),"
                                + " horizon = COALESCE(EXCLUDED.horizon, p.horizon),"
                                + " proof_capped_at = NULL,"
                                + " committed_at = EXCLUDED.committed_at")) {
            s.setString(1, table);
            s.setLong(2, checkpointId);
            s.setObject(
                    3,
                    progress.hasWatermark()
                            ? OffsetDateTime.ofInstant(
                                    Instant.ofEpochMilli(progress.watermark()), ZoneOffset.UTC)
                            : null,
                    Types.TIMESTAMP_WITH_TIMEZONE);
            s.setObject(4, progress.finalThrough(), Types.DATE);
            s.setString(5, progress.dayZone());
            s.setString(6, fence.run());
            s.setObject(
                    7,
                    progress.horizon() == null ? null : progress.horizon().toMillis(),
                    Types.BIGINT);
            s.setString(8, fence.lineage().text());
            s.setInt(9, fence.span().first());
            s.setInt(10, fence.span().last());
            s.executeUpdate();
        }
    }

    /** Marks savepoint {@code savepointId} acknowledged where this run's commit is the latest. */
    int acknowledgeSavepoint(Connection c, long savepointId) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "UPDATE sink_progress SET acknowledged_savepoint ="
                                + " GREATEST(acknowledged_savepoint, ?)"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " AND committed_run = ?")) {
            s.setLong(1, savepointId);
            s.setString(2, table);
            s.setInt(3, fence.span().first());
            s.setInt(4, fence.span().last());
            s.setString(5, fence.run());
            return s.executeUpdate();
        }
    }

    /**
     * Records a restore from {@code checkpointId}; what the range recorded of a later checkpoint
     * (watermark, last final day, acknowledged savepoint) is no longer known. A repair is recorded
     * too.
     */
    int recordRestore(Connection c, long checkpointId, boolean repaired) throws SQLException {
        if (repaired) {
            recordRepair(c, checkpointId);
        }
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_progress AS p (sink_table, key_group,"
                                + " checkpoint_id, restored_checkpoint, restored_at)"
                                + " SELECT ?, g, ?, ?, now() FROM generate_series(?, ?) AS g"
                                + " ON CONFLICT (sink_table, key_group) DO UPDATE"
                                + " SET watermark = CASE WHEN p.checkpoint_id > ?"
                                + " THEN NULL ELSE p.watermark END,"
                                + " acknowledged_savepoint = CASE WHEN"
                                + " p.acknowledged_savepoint > ? THEN NULL ELSE"
                                + " p.acknowledged_savepoint END,"
                                + " final_through = CASE WHEN p.checkpoint_id > ?"
                                + " THEN NULL ELSE p.final_through END,"
                                + " restored_checkpoint = EXCLUDED.restored_checkpoint,"
                                + " restored_at = EXCLUDED.restored_at")) {
            s.setString(1, table);
            s.setLong(2, checkpointId);
            s.setLong(3, checkpointId);
            s.setInt(4, fence.span().first());
            s.setInt(5, fence.span().last());
            s.setLong(6, checkpointId);
            s.setLong(7, checkpointId);
            s.setLong(8, checkpointId);
            return s.executeUpdate();
        }
    }

    /**
     * Records the restore's repair in {@code sink_repairs} with the last final day the range had
     * recorded: final rows after it that state no longer holds can only come from the recount.
     */
    private void recordRepair(Connection c, long checkpointId) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_repairs (sink_table, key_group_first, key_group_last,"
                                + " restored_checkpoint, final_through_found, repaired_run)"
                                + " SELECT ?, ?, ?, ?, min(final_through), ? FROM sink_progress"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ?"
                                + " ON CONFLICT DO NOTHING")) {
            s.setString(1, table);
            s.setInt(2, fence.span().first());
            s.setInt(3, fence.span().last());
            s.setLong(4, checkpointId);
            s.setString(5, fence.run());
            s.setString(6, table);
            s.setInt(7, fence.span().first());
            s.setInt(8, fence.span().last());
            s.executeUpdate();
        }
    }

    /** Deletes the range's progress. */
    void delete(Connection c) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM sink_progress WHERE sink_table = ?"
                                + " AND key_group BETWEEN ? AND ?")) {
            s.setString(1, table);
            s.setInt(2, fence.span().first());
            s.setInt(3, fence.span().last());
            s.executeUpdate();
        }
    }
}
