package io.effonce.sink.store;

import io.effonce.jdbc.RetryingSession;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * The totals tables in PostgreSQL, one writer's view: its {@link PostgresFence}, the {@link
 * PostgresLiveTable} and the {@link PostgresCommittedTable}, over one connection that retries
 * (RetryingSession). Every write transaction first checks the fence; a writer whose range was taken
 * over writes nothing more.
 */
public final class PostgresTotalsStore implements TotalsStore<MerchantDayKey, DailyTotal> {

    /**
     * The channel each commit is announced on ({@code LISTEN effonce_committed}); the payload is
     * JSON: table, checkpoint, key groups, keys changed.
     */
    public static final String COMMITTED_CHANNEL = "effonce_committed";

    private final String table;
    private final RetryingSession session;
    private final PostgresFence fence;
    private final PostgresLiveTable live;
    private final PostgresCommittedTable committed;

    public PostgresTotalsStore(PostgresStoreConfig config) {
        this.table = config.table();
        this.session = new RetryingSession(config);
        this.fence = new PostgresFence(table, session);
        this.live = new PostgresLiveTable(table, session, fence);
        this.committed = new PostgresCommittedTable(config, session, fence);
    }

    /** A factory for the job graph: it carries the config, and the store is made in the task. */
    public static TotalsStoreFactory<MerchantDayKey, DailyTotal> factory(
            PostgresStoreConfig config) {
        return () -> new PostgresTotalsStore(config);
    }

    @Override
    public Takeover takeOwnership(KeyGroupSpan span, Claim claim, Predicate<RangeRecord> mayTake) {
        return fence.takeOwnership(span, claim, mayTake);
    }

    @Override
    public void write(List<StoredRow<MerchantDayKey, DailyTotal>> rows) {
        live.write(rows);
    }

    @Override
    public void quarantine(
            StoredRow<MerchantDayKey, DailyTotal> row, String sqlState, String message) {
        live.quarantine(row, sqlState, message);
    }

    @Override
    public List<MerchantDayKey> keysTaggedSince(long tag) {
        return live.keysTaggedSince(tag);
    }

    @Override
    public void delete(Collection<MerchantDayKey> keys) {
        live.delete(keys);
    }

    @Override
    public long deleteAll() {
        fence.requireOwner();
        return session.inTransaction(
                "Resetting " + fence.span() + " of " + table,
                c -> {
                    fence.check(c);
                    committed.deleteRange(c);
                    return live.deleteRange(c);
                });
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<MerchantDayKey, DailyTotal>> rows) {
        committed.stage(checkpointId, rows);
    }

    @Override
    public int commit(long checkpointId, Progress progress) {
        return committed.commit(checkpointId, progress);
    }

    @Override
    public void recordRestore(long checkpointId) {
        committed.recordRestore(checkpointId);
    }

    @Override
    public void discardStagedAfter(long checkpointId) {
        committed.discardStagedAfter(checkpointId);
    }

    @Override
    public List<MerchantDayKey> keysCommittedAfter(long checkpointId) {
        return committed.keysCommittedAfter(checkpointId);
    }

    @Override
    public void rollBackCommitted(
            List<StoredRow<MerchantDayKey, DailyTotal>> set, Collection<MerchantDayKey> remove) {
        committed.rollBackCommitted(set, remove);
    }

    @Override
    public String tableName() {
        return table;
    }

    @Override
    public void close() {
        session.close();
    }
}
