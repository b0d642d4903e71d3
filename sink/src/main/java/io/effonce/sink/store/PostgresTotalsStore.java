package io.effonce.sink.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * The totals table in PostgreSQL: the only class with the sink's SQL. Writes are one {@code INSERT
 * ... SELECT FROM unnest(...) ON CONFLICT DO UPDATE} per batch, so a batch is one statement; every
 * write transaction first locks this writer's fence rows {@code FOR SHARE} and checks they still
 * carry its token. A takeover must update those rows, so it waits for a running write to finish,
 * and a write that starts after it sees the new token and rolls back.
 */
public final class PostgresTotalsStore implements TotalsStore<MerchantDayKey, DailyTotal> {

    /**
     * The channel each commit is announced on ({@code LISTEN effonce_committed}); the payload is
     * JSON: table, checkpoint, key groups, keys changed.
     */
    public static final String COMMITTED_CHANNEL = "effonce_committed";

    private final PostgresStoreConfig config;
    private final String table;
    private final String staged;
    private final String committed;
    private final RetryingSession session;
    private KeyGroupSpan span;
    private long token = -1;
    private String run;

    public PostgresTotalsStore(PostgresStoreConfig config) {
        this.config = config;
        this.table = config.table();
        this.staged = config.stagedTable();
        this.committed = config.committedTable();
        this.session = new RetryingSession(config);
    }

    /** A factory for the job graph: it carries the config, and the store is made in the task. */
    public static TotalsStoreFactory<MerchantDayKey, DailyTotal> factory(
            PostgresStoreConfig config) {
        return () -> new PostgresTotalsStore(config);
    }

    /**
     * One transaction: serialize with every other takeover of this table, lock the range's fence
     * rows, read the range's record, let {@code mayTake} decide, and only then take the range and
     * mark the runs it took key groups from as superseded.
     */
    @Override
    public Takeover takeOwnership(KeyGroupSpan span, Claim claim, Predicate<RangeRecord> mayTake) {
        Takeover takeover =
                session.inTransaction(
                        "Taking " + span + " of " + table + " for " + claim.task(),
                        c -> {
                            try (PreparedStatement s =
                                    c.prepareStatement(
                                            "SELECT pg_advisory_xact_lock(hashtext(?))")) {
                                s.setString(1, "sink_fences:" + table);
                                s.execute();
                            }
                            RangeRecord found = FenceRows.read(c, table, span, claim.run());
                            if (!mayTake.test(found)) {
                                return new Takeover(found, false, -1);
                            }
                            long newToken = FenceRows.take(c, table, span, claim);
                            return new Takeover(found, true, newToken);
                        });
        if (takeover.taken()) {
            this.span = span;
            this.token = takeover.token();
            this.run = claim.run();
        }
        return takeover;
    }

    @Override
    public void write(List<StoredRow<MerchantDayKey, DailyTotal>> rows) {
        if (rows.isEmpty()) {
            return;
        }
        rows.forEach(row -> requireOwned(row.keyGroup()));
        session.inTransaction(
                "Writing " + rows.size() + " rows to " + table,
                c -> {
                    checkFence(c);
                    return TotalsRows.upsert(
                            c,
                            table,
                            "barrier_tag",
                            "written_at",
                            "merchant_id, day, currency",
                            rows);
                });
    }

    /**
     * One {@code dead_letters} row per refused key: topic is this table's name, partition the key
     * group, offset a stable 63-bit hash of the key (so the same key quarantined again, after a
     * restore, adds nothing); the reason carries the SQLSTATE and the database's message, the raw
     * value the key, the value and the barrier tag, cut to {@link #QUARANTINE_MAX_CHARS}.
     */
    @Override
    public void quarantine(
            StoredRow<MerchantDayKey, DailyTotal> row, String sqlState, String message) {
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

    /** Longest reason or raw value a quarantined row keeps. */
    private static final int QUARANTINE_MAX_CHARS = 4096;

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
    public List<MerchantDayKey> keysTaggedSince(long tag) {
        requireOwner();
        return session.inTransaction(
                "Reading the tag index of " + table,
                c -> TotalsRows.keysFrom(c, table, "barrier_tag", tag, span));
    }

    @Override
    public void delete(Collection<MerchantDayKey> keys) {
        if (keys.isEmpty()) {
            return;
        }
        session.inTransaction(
                "Deleting " + keys.size() + " stale rows of " + table,
                c -> {
                    checkFence(c);
                    return TotalsRows.delete(c, table, keys, span);
                });
    }

    /**
     * Also empties the range's staged and committed values and its progress: a reset starts them
     * over too.
     */
    @Override
    public long deleteAll() {
        requireOwner();
        return session.inTransaction(
                "Resetting " + span + " of " + table,
                c -> {
                    checkFence(c);
                    TotalsRows.deleteInSpan(c, staged, span, "");
                    TotalsRows.deleteInSpan(c, committed, span, "");
                    deleteProgress(c);
                    return (long) TotalsRows.deleteInSpan(c, table, span, "");
                });
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<MerchantDayKey, DailyTotal>> rows) {
        if (rows.isEmpty()) {
            return;
        }
        rows.forEach(row -> requireOwned(row.keyGroup()));
        session.inTransaction(
                "Staging " + rows.size() + " values of checkpoint " + checkpointId,
                c -> {
                    checkFence(c);
                    return TotalsRows.upsert(
                            c,
                            staged,
                            "checkpoint_id",
                            null,
                            "checkpoint_id, merchant_id, day, currency",
                            rows);
                });
    }

    /**
     * One statement moves the range's staged values of checkpoints up to {@code checkpointId} into
     * the committed table, the newest per key; then {@code pg_notify} on {@link
     * #COMMITTED_CHANNEL}, delivered when the transaction commits.
     */
    @Override
    public int commit(long checkpointId, Progress progress) {
        requireOwner();
        return session.inTransaction(
                "Committing checkpoint " + checkpointId + " of " + span + " of " + table,
                c -> {
                    checkFence(c);
                    int moved;
                    try (PreparedStatement s =
                            c.prepareStatement(
                                    "WITH moved AS (DELETE FROM "
                                            + staged
                                            + " WHERE key_group BETWEEN ? AND ? AND checkpoint_id <= ?"
                                            + " RETURNING *), newest AS (SELECT DISTINCT ON"
                                            + " (merchant_id, day, currency) * FROM moved"
                                            + " ORDER BY merchant_id, day, currency, checkpoint_id DESC)"
                                            + " INSERT INTO "
                                            + committed
                                            + " (merchant_id, day, currency, total_minor, payments,"
                                            + " checkpoint_id, key_group, committed_at)"
                                            + " SELECT merchant_id, day, currency, total_minor,"
                                            + " payments, checkpoint_id, key_group, now() FROM newest"
                                            + " ON CONFLICT (merchant_id, day, currency) DO UPDATE"
                                            + " SET total_minor = EXCLUDED.total_minor,"
                                            + " payments = EXCLUDED.payments,"
                                            + " checkpoint_id = EXCLUDED.checkpoint_id,"
                                            + " key_group = EXCLUDED.key_group,"
                                            + " committed_at = EXCLUDED.committed_at")) {
                        s.setInt(1, span.first());
                        s.setInt(2, span.last());
                        s.setLong(3, checkpointId);
                        moved = s.executeUpdate();
                    }
                    recordProgress(c, checkpointId, progress);
                    // The payload is built by the server: json_build_object escapes the values.
                    try (PreparedStatement s =
                            c.prepareStatement(
                                    "SELECT pg_notify(?, json_build_object('table', ?::text,"
                                            + " 'checkpoint', ?::bigint, 'key_groups', ?::text,"
                                            + " 'keys', ?::bigint)::text)")) {
                        s.setString(1, COMMITTED_CHANNEL);
                        s.setString(2, table);
                        s.setLong(3, checkpointId);
                        s.setString(4, span.first() + ".." + span.last());
                        s.setLong(5, moved);
                        s.execute();
                    }
                    return moved;
                });
    }

    /**
     * One row per key group of the range in {@code sink_progress}: the checkpoint, and the
     * watermark and last final day, each the greater of the recorded and the new (a restored run
     * starts without a watermark; its restored checkpoint was complete through the recorded one).
     */
    private void recordProgress(Connection c, long checkpointId, Progress progress)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "INSERT INTO sink_progress AS p (sink_table, key_group, checkpoint_id,"
                                + " watermark, final_through, day_zone, committed_at, committed_run,"
                                + " horizon)"
                                + " SELECT ?, g, ?, ?, ?, ?, now(), ?,"
                                + " CAST(? AS BIGINT) * INTERVAL '1 millisecond'"
                                + " FROM generate_series(?, ?) AS g"
                                + " ON CONFLICT (sink_table, key_group) DO UPDATE"
                                + " SET checkpoint_id = EXCLUDED.checkpoint_id,"
                                + " committed_run = EXCLUDED.committed_run,"
                                + " watermark = GREATEST(p.watermark, EXCLUDED.watermark),"
                                + " final_through = GREATEST(p.final_through, EXCLUDED.final_through),"
                                + " day_zone = COALESCE(EXCLUDED.day_zone, p.day_zone),"
                                + " horizon = COALESCE(EXCLUDED.horizon, p.horizon),"
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
            s.setString(6, run);
            s.setObject(
                    7,
                    progress.horizon() == null ? null : progress.horizon().toMillis(),
                    Types.BIGINT);
            s.setInt(8, span.first());
            s.setInt(9, span.last());
            s.executeUpdate();
        }
    }

    @Override
    public void recordRestore(long checkpointId) {
        requireOwner();
        session.inTransaction(
                "Recording the restore from checkpoint " + checkpointId + " of " + span,
                c -> {
                    checkFence(c);
                    try (PreparedStatement s =
                            c.prepareStatement(
                                    "INSERT INTO sink_progress AS p (sink_table, key_group,"
                                            + " checkpoint_id, restored_checkpoint, restored_at)"
                                            + " SELECT ?, g, ?, ?, now() FROM generate_series(?, ?) AS g"
                                            + " ON CONFLICT (sink_table, key_group) DO UPDATE"
                                            + " SET watermark = CASE WHEN p.checkpoint_id > ?"
                                            + " THEN NULL ELSE p.watermark END,"
                                            + " final_through = CASE WHEN p.checkpoint_id > ?"
                                            + " THEN NULL ELSE p.final_through END,"
                                            + " restored_checkpoint = EXCLUDED.restored_checkpoint,"
                                            + " restored_at = EXCLUDED.restored_at")) {
                        s.setString(1, table);
                        s.setLong(2, checkpointId);
                        s.setLong(3, checkpointId);
                        s.setInt(4, span.first());
                        s.setInt(5, span.last());
                        s.setLong(6, checkpointId);
                        s.setLong(7, checkpointId);
                        return s.executeUpdate();
                    }
                });
    }

    private void deleteProgress(Connection c) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM sink_progress WHERE sink_table = ?"
                                + " AND key_group BETWEEN ? AND ?")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            s.executeUpdate();
        }
    }

    @Override
    public void discardStagedAfter(long checkpointId) {
        requireOwner();
        session.inTransaction(
                "Discarding values staged after checkpoint " + checkpointId,
                c -> {
                    checkFence(c);
                    return TotalsRows.deleteInSpan(
                            c, staged, span, " AND checkpoint_id > ?", checkpointId);
                });
    }

    @Override
    public List<MerchantDayKey> keysCommittedAfter(long checkpointId) {
        requireOwner();
        return session.inTransaction(
                "Reading committed values after checkpoint " + checkpointId,
                c -> TotalsRows.keysFrom(c, committed, "checkpoint_id", checkpointId + 1, span));
    }

    @Override
    public void rollBackCommitted(
            List<StoredRow<MerchantDayKey, DailyTotal>> set, Collection<MerchantDayKey> remove) {
        if (set.isEmpty() && remove.isEmpty()) {
            return;
        }
        set.forEach(row -> requireOwned(row.keyGroup()));
        session.inTransaction(
                "Rolling back " + (set.size() + remove.size()) + " committed values of " + table,
                c -> {
                    checkFence(c);
                    if (!set.isEmpty()) {
                        TotalsRows.upsert(
                                c,
                                committed,
                                "checkpoint_id",
                                "committed_at",
                                "merchant_id, day, currency",
                                set);
                    }
                    return remove.isEmpty() ? 0 : TotalsRows.delete(c, committed, remove, span);
                });
    }

    @Override
    public String tableName() {
        return table;
    }

    @Override
    public void close() {
        session.close();
    }

    /**
     * Locks this writer's fence rows for the rest of the transaction and fails it unless every one
     * still carries this writer's token.
     */
    private void checkFence(Connection c) throws SQLException {
        requireOwner();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT count(*), count(*) FILTER (WHERE owner_token = ?),"
                                + " max(owner_token), max(owner_task)"
                                + " FROM (SELECT owner_token, owner_task FROM sink_fences"
                                + " WHERE sink_table = ? AND key_group BETWEEN ? AND ? FOR SHARE) f")) {
            s.setLong(1, token);
            s.setString(2, table);
            s.setInt(3, span.first());
            s.setInt(4, span.last());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                long rows = rs.getLong(1);
                long mine = rs.getLong(2);
                if (rows != span.size() || mine != rows) {
                    throw new FencedException(
                            "Writer with token "
                                    + token
                                    + " no longer owns "
                                    + span
                                    + " of "
                                    + table
                                    + ": taken over by token "
                                    + rs.getLong(3)
                                    + " ("
                                    + rs.getString(4)
                                    + "); this writer belongs to a failed attempt and stops");
                }
            }
        }
    }

    private void requireOwner() {
        if (span == null) {
            throw new IllegalStateException("takeOwnership(...) must come before any other call");
        }
    }

    private void requireOwned(int keyGroup) {
        requireOwner();
        if (!span.contains(keyGroup)) {
            throw new IllegalArgumentException(
                    "Key group " + keyGroup + " is outside this writer's " + span);
        }
    }
}
