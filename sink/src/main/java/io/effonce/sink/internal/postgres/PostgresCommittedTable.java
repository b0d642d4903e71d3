package io.effonce.sink.internal.postgres;

import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.Progress;
import io.effonce.sink.internal.CommittedTable;
import io.effonce.sink.internal.StagedDiscard;
import io.effonce.sink.internal.StoredRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The committed read contract in PostgreSQL: values staged per checkpoint, moved to the committed
 * table when the checkpoint completes (announced with {@code pg_notify}), the range's progress
 * ({@link ProgressRows}), and the roll-back after an older savepoint. Each transaction opens with
 * the fence's check.
 */
final class PostgresCommittedTable<K, V> implements CommittedTable<K, V> {

    private final String table;
    private final String staged;
    private final String committed;
    private final RowStatements<K, V> rows;
    private final RestoreStatements<K, V> restores;
    private final RetryingSession session;
    private final PostgresFence fence;
    private final ProgressRows progressRows;

    PostgresCommittedTable(
            PostgresStoreConfig config,
            RowStatements<K, V> rows,
            RetryingSession session,
            PostgresFence fence) {
        this.table = config.table();
        this.staged = config.stagedTable();
        this.committed = config.committedTable();
        this.rows = rows;
        this.restores = new RestoreStatements<>(rows);
        this.session = session;
        this.fence = fence;
        this.progressRows = new ProgressRows(table, fence);
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<K, V>> batch) {
        if (batch.isEmpty()) {
            return;
        }
        batch.forEach(row -> fence.requireOwned(row.keyGroup()));
        Map<Boolean, List<StoredRow<K, V>>> split = StoredRow.byTombstone(batch);
        List<StoredRow<K, V>> values = split.get(false);
        List<StoredRow<K, V>> tombstones = split.get(true);
        fence.guarded(
                "Staging " + batch.size() + " values of checkpoint " + checkpointId,
                c -> {
                    int n = 0;
                    if (!values.isEmpty()) {
                        n +=
                                rows.upsert(
                                        c,
                                        staged,
                                        "checkpoint_id",
                                        null,
                                        "checkpoint_id, " + rows.keyList(),
                                        values);
                        rows.markStaged(c, staged, checkpointId, values, fence.run(), false);
                    }
                    if (!tombstones.isEmpty()) {
                        n += rows.stageTombstones(c, staged, tombstones);
                        rows.markStaged(c, staged, checkpointId, tombstones, fence.run(), true);
                    }
                    return n;
                });
    }

    /**
     * Moves the staged values ({@link #moveStaged}), records the commit, then {@code pg_notify} on
     * {@link PostgresSinkStore#COMMITTED_CHANNEL}, delivered when the transaction commits.
     */
    @Override
    public int commit(long checkpointId, Progress progress) {
        fence.requireOwner();
        return fence.guarded(
                "Committing checkpoint " + checkpointId + " of " + fence.span() + " of " + table,
                c -> {
                    int moved = moveStaged(c, checkpointId);
                    progressRows.recordCommit(c, checkpointId, progress);
                    // The payload is built by the server: json_build_object escapes the values.
                    try (PreparedStatement s =
                            c.prepareStatement(
                                    "SELECT pg_notify(?, json_build_object('table', ?::text,"
                                            + " 'checkpoint', ?::bigint, 'key_groups', ?::text,"
                                            + " 'keys', ?::bigint)::text)")) {
                        s.setString(1, PostgresSinkStore.COMMITTED_CHANNEL);
                        s.setString(2, table);
                        s.setLong(3, checkpointId);
                        s.setString(4, fence.span().first() + ".." + fence.span().last());
                        s.setLong(5, moved);
                        s.execute();
                    }
                    return moved;
                });
    }

    @Override
    public int promoteStaged(long checkpointId) {
        fence.requireOwner();
        return fence.guarded(
                "Promoting values staged through checkpoint " + checkpointId + " of " + table,
                c -> moveStaged(c, checkpointId));
    }

    /**
     * One statement moves the range's staged values of checkpoints up to {@code checkpointId} into
     * the committed table, the newest per key (a staged deletion removes the key).
     */
    private int moveStaged(Connection c, long checkpointId) throws SQLException {
        String keys = rows.keyList();
        String keysAndValues = rows.columnList();
        try (PreparedStatement s =
                c.prepareStatement(
                        "WITH moved AS (DELETE FROM "
                                + staged
                                + " WHERE key_group BETWEEN ? AND ? AND checkpoint_id <= ?"
                                + " RETURNING *), newest AS (SELECT DISTINCT ON ("
                                + keys
                                + ") * FROM moved ORDER BY "
                                + keys
                                + ", checkpoint_id DESC), upserted AS (INSERT INTO "
                                + committed
                                + " ("
                                + keysAndValues
                                + ", checkpoint_id, key_group, committed_at) SELECT "
                                + keysAndValues
                                + ", checkpoint_id, key_group, now() FROM newest"
                                + " WHERE NOT deleted ON CONFLICT ("
                                + keys
                                + ") DO UPDATE SET "
                                + rows.valuesFromExcluded()
                                + "checkpoint_id = EXCLUDED.checkpoint_id,"
                                + " key_group = EXCLUDED.key_group,"
                                + " committed_at = EXCLUDED.committed_at"
                                + " RETURNING 1), removed AS (DELETE FROM "
                                + committed
                                + " t USING newest n WHERE n.deleted"
                                + rows.keysEqual("t", "n")
                                + " RETURNING 1) SELECT (SELECT count(*) FROM upserted)"
                                + " + (SELECT count(*) FROM removed)")) {
            s.setInt(1, fence.span().first());
            s.setInt(2, fence.span().last());
            s.setLong(3, checkpointId);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Override
    public void acknowledgeSavepoint(long savepointId) {
        fence.requireOwner();
        fence.guarded(
                "Acknowledging savepoint " + savepointId + " of " + fence.span() + " of " + table,
                c -> progressRows.acknowledgeSavepoint(c, savepointId));
    }

    @Override
    public void recordRestore(long checkpointId, boolean repaired) {
        fence.requireOwner();
        fence.guarded(
                "Recording the restore from checkpoint " + checkpointId + " of " + fence.span(),
                c -> progressRows.recordRestore(c, checkpointId, repaired));
    }

    @Override
    public void discardStaged(StagedDiscard discard) {
        fence.requireOwner();
        fence.guarded(
                "Discarding values staged after checkpoint "
                        + discard.checkpoint()
                        + ", and after "
                        + discard.suspectAfter()
                        + " outside its lineage",
                c -> restores.discardStaged(c, staged, fence.span(), discard));
    }

    @Override
    public List<K> keysCommittedAfter(long checkpointId) {
        fence.requireOwner();
        return session.inTransaction(
                "Reading committed values after checkpoint " + checkpointId,
                c ->
                        restores.keysFrom(
                                c, committed, "checkpoint_id", checkpointId + 1, fence.span()));
    }

    @Override
    public List<K> restoreLiveFromCommitted(long checkpointId, Collection<K> keys, long tag) {
        if (keys.isEmpty()) {
            return List.of();
        }
        return fence.guarded(
                "Restoring live rows of " + table + " committed through " + checkpointId,
                c ->
                        restores.liveFromCommitted(
                                c, table, committed, keys, checkpointId, tag, fence.span()));
    }

    @Override
    public void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove) {
        if (set.isEmpty() && remove.isEmpty()) {
            return;
        }
        set.forEach(row -> fence.requireOwned(row.keyGroup()));
        fence.guarded(
                "Rolling back " + (set.size() + remove.size()) + " committed values of " + table,
                c -> {
                    if (!set.isEmpty()) {
                        rows.upsert(
                                c, committed, "checkpoint_id", "committed_at", rows.keyList(), set);
                    }
                    return remove.isEmpty() ? 0 : rows.delete(c, committed, remove, fence.span());
                });
    }

    /**
     * Empties this range's staged and committed values and its progress, in the caller's
     * transaction.
     */
    void deleteRange(Connection c) throws SQLException {
        SpanDelete.rows(c, staged, fence.span(), "");
        SpanDelete.rows(c, committed, fence.span(), "");
        progressRows.delete(c);
    }
}
