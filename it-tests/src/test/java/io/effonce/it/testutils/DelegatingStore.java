package io.effonce.it.testutils;

import io.effonce.job.DailyTotal;
import io.effonce.job.MerchantDayKey;
import io.effonce.sink.Progress;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.Takeover;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/** The job's totals store, every call passed on: a fault overrides the call it changes. */
public abstract class DelegatingStore implements SinkStore<MerchantDayKey, DailyTotal> {

    protected final SinkStore<MerchantDayKey, DailyTotal> store;

    protected DelegatingStore(SinkStore<MerchantDayKey, DailyTotal> store) {
        this.store = store;
    }

    @Override
    public Takeover takeOwnership(KeyGroupSpan span, Claim claim, Predicate<RangeRecord> mayTake) {
        return store.takeOwnership(span, claim, mayTake);
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
    public void write(List<StoredRow<MerchantDayKey, DailyTotal>> rows) {
        store.write(rows);
    }

    @Override
    public void quarantine(
            StoredRow<MerchantDayKey, DailyTotal> row, String sqlState, String message) {
        store.quarantine(row, sqlState, message);
    }

    @Override
    public List<MerchantDayKey> keysTaggedSince(long tag) {
        return store.keysTaggedSince(tag);
    }

    @Override
    public void delete(List<StoredRow<MerchantDayKey, DailyTotal>> tombstones) {
        store.delete(tombstones);
    }

    @Override
    public long deleteAll() {
        return store.deleteAll();
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<MerchantDayKey, DailyTotal>> rows) {
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
    public void discardStagedAfter(long checkpointId) {
        store.discardStagedAfter(checkpointId);
    }

    @Override
    public List<MerchantDayKey> keysCommittedAfter(long checkpointId) {
        return store.keysCommittedAfter(checkpointId);
    }

    @Override
    public List<MerchantDayKey> restoreLiveFromCommitted(
            long checkpointId, Collection<MerchantDayKey> keys, long tag) {
        return store.restoreLiveFromCommitted(checkpointId, keys, tag);
    }

    @Override
    public void rollBackCommitted(
            List<StoredRow<MerchantDayKey, DailyTotal>> set, Collection<MerchantDayKey> remove) {
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
