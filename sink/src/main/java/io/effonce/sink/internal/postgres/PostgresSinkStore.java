package io.effonce.sink.internal.postgres;

import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.Progress;
import io.effonce.sink.RowMapping;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StagedDiscard;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;

/**
 * The totals tables in PostgreSQL, one writer's view: its {@link PostgresFence}, the {@link
 * PostgresLiveTable} and the {@link PostgresCommittedTable}, over one connection that retries
 * (RetryingSession). Every write transaction first checks the fence; a writer whose range was taken
 * over writes nothing more.
 */
@Internal
public final class PostgresSinkStore<K, V> implements SinkStore<K, V> {

    /**
     * The channel each commit is announced on ({@code LISTEN effonce_committed}); the payload is
     * JSON: table, checkpoint, key groups, keys changed.
     */
    public static final String COMMITTED_CHANNEL = "effonce_committed";

    private final String table;
    private final RetryingSession session;
    private final PostgresFence fence;
    private final PostgresLiveTable<K, V> live;
    private final PostgresCommittedTable<K, V> committed;

    /** The store of {@code config}'s tables, whose key and value columns {@code mapping} gives. */
    public PostgresSinkStore(PostgresStoreConfig config, RowMapping<K, V> mapping) {
        this.table = config.table();
        this.session = new RetryingSession(config.session());
        this.fence = new PostgresFence(config, session);
        RowStatements<K, V> rows = new RowStatements<>(mapping);
        this.live = new PostgresLiveTable<>(table, rows, session, fence);
        this.committed = new PostgresCommittedTable<>(config, rows, session, fence);
    }

    @Override
    public Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
        return fence.takeOwnership(span, claim, terms);
    }

    @Override
    public void recordBarrier(long checkpointId) {
        fence.recordBarrier(checkpointId);
    }

    @Override
    public void recordSavepointBarrier(long savepointId) {
        fence.recordSavepointBarrier(savepointId);
    }

    @Override
    public void releaseLease() {
        fence.releaseLease();
    }

    @Override
    public void write(List<StoredRow<K, V>> rows) {
        live.write(rows);
    }

    @Override
    public void quarantine(StoredRow<K, V> row, String sqlState, String message) {
        live.quarantine(row, sqlState, message);
    }

    @Override
    public List<K> keysTaggedSince(long tag) {
        return live.keysTaggedSince(tag);
    }

    @Override
    public void delete(List<StoredRow<K, V>> tombstones) {
        live.delete(tombstones);
    }

    @Override
    public long deleteAll() {
        fence.requireOwner();
        return fence.guarded(
                "Resetting " + fence.span() + " of " + table,
                c -> {
                    committed.deleteRange(c);
                    SavepointBarriers.deleteRange(c, table, fence.span());
                    return live.deleteRange(c);
                });
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<K, V>> rows) {
        committed.stage(checkpointId, rows);
    }

    @Override
    public int commit(long checkpointId, Progress progress) {
        return committed.commit(checkpointId, progress);
    }

    @Override
    public int promoteStaged(long checkpointId) {
        return committed.promoteStaged(checkpointId);
    }

    @Override
    public void acknowledgeSavepoint(long savepointId) {
        committed.acknowledgeSavepoint(savepointId);
    }

    @Override
    public void recordRestore(long checkpointId, boolean repaired) {
        committed.recordRestore(checkpointId, repaired);
    }

    @Override
    public void discardStaged(StagedDiscard discard) {
        committed.discardStaged(discard);
    }

    @Override
    public List<K> keysCommittedAfter(long checkpointId) {
        return committed.keysCommittedAfter(checkpointId);
    }

    @Override
    public List<K> restoreLiveFromCommitted(long checkpointId, Collection<K> keys, long tag) {
        return committed.restoreLiveFromCommitted(checkpointId, keys, tag);
    }

    @Override
    public void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove) {
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
