package io.effonce.it.testutils;

import io.effonce.job.MerchantDayRows;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.Progress;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.postgres.PostgresSinkStore;
import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/** Faults injected at the sink's store, the seam the job graph already has for it. */
public final class StoreFaults {

    private StoreFaults() {}

    /**
     * The counterfactual of step 3 of the full flush: the store ignores deletes, so a key that the
     * restored state lacks stays in the table. {@code LedgerPipeline} builds its sink from options,
     * which cannot switch the delete step off, so the switch is made here, one level down, with the
     * same effect as {@code SinkTestHooks.withoutStaleDeletion} (the sink's test-jar).
     */
    public static SinkStoreFactory<MerchantDayKey, DailyTotal> withoutDeletes(
            PostgresStoreConfig config) {
        return () -> new IgnoringDeletes(new PostgresSinkStore<>(config, MerchantDayRows.MAPPING));
    }

    private static final class IgnoringDeletes implements SinkStore<MerchantDayKey, DailyTotal> {
        private final SinkStore<MerchantDayKey, DailyTotal> store;

        IgnoringDeletes(SinkStore<MerchantDayKey, DailyTotal> store) {
            this.store = store;
        }

        @Override
        public Takeover takeOwnership(
                KeyGroupSpan span, Claim claim, Predicate<RangeRecord> mayTake) {
            return store.takeOwnership(span, claim, mayTake);
        }

        @Override
        public void recordBarrier(long checkpointId) {
            store.recordBarrier(checkpointId);
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
            // the fault: step 3 of the flush does nothing
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
                List<StoredRow<MerchantDayKey, DailyTotal>> set,
                Collection<MerchantDayKey> remove) {
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
}
