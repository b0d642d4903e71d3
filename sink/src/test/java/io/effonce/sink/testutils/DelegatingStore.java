package io.effonce.sink.testutils;

import io.effonce.sink.Progress;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StagedDiscard;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import java.io.Serializable;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * A store with every call passed on: a fault or a rule switched off overrides the call it changes.
 */
public abstract class DelegatingStore<K, V> implements SinkStore<K, V> {

    protected final SinkStore<K, V> store;

    /** What wraps each store a factory creates: a fault, or a rule switched off. */
    @FunctionalInterface
    public interface Decoration<K, V> extends Serializable {
        SinkStore<K, V> around(SinkStore<K, V> store);
    }

    /**
     * {@code stores}, each store they create wrapped by {@code decoration}; deployments are
     * numbered and tables scripted as {@code stores} do.
     */
    public static <K, V> SinkStoreFactory<K, V> decorating(
            SinkStoreFactory<K, V> stores, Decoration<K, V> decoration) {
        return new SinkStoreFactory<>() {
            @Override
            public SinkStore<K, V> create() {
                return decoration.around(stores.create());
            }

            @Override
            public OptionalLong numberDeployment() {
                return stores.numberDeployment();
            }

            @Override
            public Optional<String> tablesScript() {
                return stores.tablesScript();
            }
        };
    }

    protected DelegatingStore(SinkStore<K, V> store) {
        this.store = store;
    }

    @Override
    public Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
        return store.takeOwnership(span, claim, terms);
    }

    @Override
    public void recordBarrier(long checkpointId) {
        store.recordBarrier(checkpointId);
    }

    @Override
    public void recordSavepointBarrier(long savepointId) {
        store.recordSavepointBarrier(savepointId);
    }

    @Override
    public void releaseLease() {
        store.releaseLease();
    }

    @Override
    public void write(List<StoredRow<K, V>> rows) {
        store.write(rows);
    }

    @Override
    public void quarantine(StoredRow<K, V> row, String sqlState, String message) {
        store.quarantine(row, sqlState, message);
    }

    @Override
    public List<K> keysTaggedSince(long tag) {
        return store.keysTaggedSince(tag);
    }

    @Override
    public void delete(List<StoredRow<K, V>> tombstones) {
        store.delete(tombstones);
    }

    @Override
    public long deleteAll() {
        return store.deleteAll();
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<K, V>> rows) {
        store.stage(checkpointId, rows);
    }

    @Override
    public int commit(long checkpointId, Progress progress) {
        return store.commit(checkpointId, progress);
    }

    @Override
    public int promoteStaged(long checkpointId) {
        return store.promoteStaged(checkpointId);
    }

    @Override
    public void acknowledgeSavepoint(long savepointId) {
        store.acknowledgeSavepoint(savepointId);
    }

    @Override
    public void recordRestore(long checkpointId, boolean repaired) {
        store.recordRestore(checkpointId, repaired);
    }

    @Override
    public void discardStaged(StagedDiscard discard) {
        store.discardStaged(discard);
    }

    @Override
    public List<K> keysCommittedAfter(long checkpointId) {
        return store.keysCommittedAfter(checkpointId);
    }

    @Override
    public List<K> restoreLiveFromCommitted(long checkpointId, Collection<K> keys, long tag) {
        return store.restoreLiveFromCommitted(checkpointId, keys, tag);
    }

    @Override
    public void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove) {
        store.rollBackCommitted(set, remove);
    }

    @Override
    public String tableName() {
        return store.tableName();
    }

    @Override
    public void close() {
        store.close();
    }
}
