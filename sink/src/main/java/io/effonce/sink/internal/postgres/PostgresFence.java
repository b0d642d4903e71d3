package io.effonce.sink.internal.postgres;

import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.FencedException;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.LostWritesException;
import io.effonce.sink.internal.RangeFence;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.RunLineage;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * The fence rows ({@code sink_fences}) of one table, as one writer holds them: taking a range, and
 * the checks that open every write transaction ({@link #guarded}).
 *
 * <p>The fence check locks this writer's fence rows {@code FOR SHARE} and fails unless they still
 * carry its token and writer id; a takeover must update those rows, so it waits for a running write
 * to finish, and a write that starts after it sees the new owner and rolls back.
 *
 * <p>The write check ({@link WriteCount}) fails a transaction with {@link LostWritesException} when
 * the database went back in time: within one write transaction, and at least one runs per
 * checkpoint ({@link #recordBarrier}); the writer then revokes the range's proof. The writer id is
 * random, because a database that went back can hand out a token a second time.
 */
final class PostgresFence implements RangeFence {

    private final String table;
    private final List<String> rowTables;
    private final RetryingSession session;
    private final boolean checkWrites;
    private final String writer = UUID.randomUUID().toString();
    private KeyGroupSpan span;
    private long token = -1;
    private String run;
    private RunLineage lineage;

    /** What this writer's attempt restored, until it records its first barrier; else -1. */
    private long restoredBeforeFirstBarrier = -1;

    private final WriteCount writes;

    PostgresFence(PostgresStoreConfig config, RetryingSession session) {
        this.table = config.table();
        this.rowTables = List.of(table, config.stagedTable(), config.committedTable());
        this.session = session;
        this.checkWrites = config.lostWriteCheck();
        this.writes = new WriteCount(config.table(), writer);
    }

    /**
     * Runs {@code work} in one transaction that first passes the fence and write checks: a writer
     * taken over, or one whose database lost what it acknowledged, writes nothing.
     */
    <T> T guarded(String what, RetryingSession.Work<T> work) {
        requireOwner();
        T result;
        try {
            result =
                    session.inTransaction(
                            what,
                            c -> {
                                check(c);
                                return work.run(c);
                            });
        } catch (LostWritesException e) {
            revokeProof(e);
            throw e;
        }
        writes.acknowledged();
        return result;
    }

    /**
     * The database went back only in part (an operator restored some tables, not all): what it kept
     * of the range's progress and fence may prove writes it no longer holds. Proven false now, it
     * must not pass for proof, so the restore that follows repairs the range from state ({@link
     * ProofRows#revoke}). When even this fails, the task fails all the same.
     */
    private void revokeProof(LostWritesException lost) {
        try {
            session.inTransaction(
                    "Revoking the proof of " + span + " of " + table,
                    c -> ProofRows.revoke(c, table, span));
        } catch (RuntimeException e) {
            lost.addSuppressed(e);
        }
    }

    /**
     * One transaction: serialize with every other takeover of this table, lock the range's fence
     * rows, read the range's record, let {@code terms} decide, and only then take the range and
     * mark the runs it took key groups from as superseded.
     */
    @Override
    public Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
        Takeover takeover =
                session.inTransaction(
                        "Taking " + span + " of " + table + " for " + claim.task(),
                        c -> {
                            RangeRecord found = FenceRows.read(c, table, rowTables, span, claim);
                            TakeoverTerms decided = terms.apply(found);
                            if (!decided.takes()) {
                                return new Takeover(found, false, -1);
                            }
                            long newToken =
                                    FenceRows.take(c, table, span, claim, found, decided, writer);
                            return new Takeover(found, true, newToken);
                        });
        if (takeover.taken()) {
            this.span = span;
            this.token = takeover.token();
            this.run = claim.run();
            this.lineage = claim.lineage();
            this.restoredBeforeFirstBarrier = claim.restoredOrZero();
            writes.restart();
        }
        return takeover;
    }

    @Override
    public void recordBarrier(long checkpointId) {
        long restored = restoredBeforeFirstBarrier;
        guarded(
                "Recording barrier " + checkpointId + " in " + span + " of " + table,
                c -> {
                    SavepointBarriers.recordRestartGap(c, table, span, run, restored, checkpointId);
                    return ProofRows.recordBarrier(c, table, span, checkpointId);
                });
        restoredBeforeFirstBarrier = -1;
    }

    @Override
    public void releaseLease() {
        if (span != null) {
            session.inTransaction(
                    "Releasing " + span + " of " + table,
                    c -> LeaseRows.release(c, table, span, writer));
        }
    }

    @Override
    public void recordSavepointBarrier(long savepointId) {
        guarded(
                "Recording savepoint barrier " + savepointId + " in " + span + " of " + table,
                c -> {
                    SavepointBarriers.record(c, table, span, run, savepointId);
                    return null;
                });
    }

    /**
     * Locks this writer's fence rows for the rest of the transaction and fails it unless every one
     * still carries this writer's token and id; then advances this writer's count of acknowledged
     * write transactions, or fails if the database holds fewer than it acknowledged.
     */
    private void check(Connection c) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT count(*),"
                                + " count(*) FILTER (WHERE owner_token = ? AND owner_writer = ?),"
                                + " max(owner_token), max(owner_task)"
                                + " FROM (SELECT owner_token, owner_writer, owner_task"
                                + " FROM sink_fences WHERE sink_table = ?"
                                + " AND key_group BETWEEN ? AND ? FOR SHARE) f")) {
            s.setLong(1, token);
            s.setString(2, writer);
            s.setString(3, table);
            s.setInt(4, span.first());
            s.setInt(5, span.last());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                long rows = rs.getLong(1);
                long mine = rs.getLong(2);
                long newest = rs.getLong(3);
                if (rows != span.size() || mine != rows) {
                    if (checkWrites && newest < token) {
                        // Tokens only grow: a fence whose newest owner is older than this writer
                        // is a fence from before this writer's takeover.
                        throw writes.lost(
                                where(),
                                rows == 0
                                        ? "it holds no fence rows for the range this writer took"
                                        : "its fence rows are back to an owner before it (token "
                                                + newest
                                                + ", "
                                                + rs.getString(4)
                                                + ")");
                    }
                    throw new FencedException(
                            String.format(
                                    "Writer with token %d no longer owns %s of %s: taken over by"
                                            + " token %d (%s); this writer belongs to a failed"
                                            + " attempt and stops",
                                    token, span, table, newest, rs.getString(4)));
                }
            }
        }
        if (checkWrites) {
            writes.advance(c, where());
        }
    }

    /** Where this writer writes, for the message of lost writes. */
    private String where() {
        return span + " of " + table + " (writer token " + token + ")";
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

    /** That run's lineage, as {@code sink_progress} records it with each commit. */
    RunLineage lineage() {
        requireOwner();
        return lineage;
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
