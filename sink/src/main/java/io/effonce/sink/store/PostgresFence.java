package io.effonce.sink.store;

import io.effonce.jdbc.RetryingSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Predicate;

/**
 * The fence rows ({@code sink_fences}) of one table, as one writer holds them: taking a range, and
 * the check that opens every write transaction. The check locks this writer's fence rows {@code FOR
 * SHARE} and fails unless they still carry its token; a takeover must update those rows, so it
 * waits for a running write to finish, and a write that starts after it sees the new token and
 * rolls back.
 */
final class PostgresFence implements RangeFence {

    private final String table;
    private final RetryingSession session;
    private KeyGroupSpan span;
    private long token = -1;
    private String run;

    PostgresFence(String table, RetryingSession session) {
        this.table = table;
        this.session = session;
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
    public void recordBarrier(long checkpointId) {
        requireOwner();
        session.inTransaction(
                "Recording barrier " + checkpointId + " in " + span + " of " + table,
                c -> {
                    check(c);
                    try (PreparedStatement s =
                            c.prepareStatement(
                                    "UPDATE sink_fences SET owner_barrier ="
                                            + " GREATEST(owner_barrier, ?) WHERE sink_table = ?"
                                            + " AND key_group BETWEEN ? AND ?")) {
                        s.setLong(1, checkpointId);
                        s.setString(2, table);
                        s.setInt(3, span.first());
                        s.setInt(4, span.last());
                        return s.executeUpdate();
                    }
                });
    }

    /**
     * Locks this writer's fence rows for the rest of the transaction and fails it unless every one
     * still carries this writer's token.
     */
    void check(Connection c) throws SQLException {
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

    /** The range this writer took. */
    KeyGroupSpan span() {
        requireOwner();
        return span;
    }

    /** The run that took it, as {@code sink_progress} records who committed. */
    String run() {
        requireOwner();
        return run;
    }

    void requireOwner() {
        if (span == null) {
            throw new IllegalStateException("takeOwnership(...) must come before any other call");
        }
    }

    void requireOwned(int keyGroup) {
        requireOwner();
        if (!span.contains(keyGroup)) {
            throw new IllegalArgumentException(
                    "Key group " + keyGroup + " is outside this writer's " + span);
        }
    }
}
