package io.effonce.sink.internal;

import io.effonce.sink.store.StoredRow;
import io.effonce.sink.store.TotalsStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The full flush after a restore from checkpoint {@code c}, for one writer's key-group range:
 *
 * <ol>
 *   <li>read the tag index for keys tagged {@code c} or later: what the erased run wrote after
 *       barrier {@code c} reached this sink;
 *   <li>SET every key of restored state to its restored value, tagged {@code c};
 *   <li>delete each key found in step 1 that restored state does not hold: the replay may never
 *       write it again (new job logic, a retired key), so nothing else would remove it.
 * </ol>
 *
 * <p>The tag index is read before the SETs so that it returns only the erased run's writes, not
 * every restored key rewritten with tag {@code c}. The outcome equals the set-then-scan order
 * because the writer owns the range: no other writer can add a row in between.
 */
public final class RestoreFlush<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreFlush.class);

    /**
     * Restored keys are SET in batches of at least this many rows: the flush holds up the whole
     * subtask, so it trades the live path's small batches for fewer, larger statements.
     */
    static final int MIN_FLUSH_BATCH = 10_000;

    private final TotalsStore<K, V> store;
    private final QuarantiningWriter<K, V> writer;
    private final ToIntFunction<K> keyGroupOf;
    private final int batchSize;
    private final boolean deleteStale;

    /**
     * @param batchSize the live path's batch size; the flush uses at least {@link #MIN_FLUSH_BATCH}
     * @param deleteStale {@code false} skips step 3; only for tests that show why it exists
     */
    RestoreFlush(
            TotalsStore<K, V> store,
            QuarantiningWriter<K, V> writer,
            ToIntFunction<K> keyGroupOf,
            int batchSize,
            boolean deleteStale) {
        this.store = store;
        this.writer = writer;
        this.keyGroupOf = keyGroupOf;
        this.batchSize = Math.max(batchSize, MIN_FLUSH_BATCH);
        this.deleteStale = deleteStale;
    }

    /** Runs the flush from {@code checkpointId} against {@code restoredState}. */
    FlushReport run(long checkpointId, RestoredState<K, V> restoredState) {
        long start = System.nanoTime();
        List<K> taggedSinceRestore = store.keysTaggedSince(checkpointId);

        List<StoredRow<K, V>> batch = new ArrayList<>(batchSize);
        long[] set = {0};
        restoredState.forEach(
                (key, value) -> {
                    batch.add(
                            new StoredRow<>(key, value, keyGroupOf.applyAsInt(key), checkpointId));
                    if (batch.size() >= batchSize) {
                        set[0] += writeAndClear(batch);
                    }
                });
        set[0] += writeAndClear(batch);

        List<K> stale = new ArrayList<>();
        for (K key : taggedSinceRestore) {
            if (restoredState.valueOf(key) == null) {
                stale.add(key);
            }
        }
        if (deleteStale) {
            for (int from = 0; from < stale.size(); from += batchSize) {
                store.delete(stale.subList(from, Math.min(stale.size(), from + batchSize)));
            }
        } else if (!stale.isEmpty()) {
            LOG.warn(
                    "Flush of {} left {} stale keys in place because deleting them is switched off",
                    store.tableName(),
                    stale.size());
        }
        long deleted = deleteStale ? stale.size() : 0;
        FlushReport report =
                new FlushReport(set[0], deleted, (System.nanoTime() - start) / 1_000_000);
        LOG.info(
                "Full flush of {} after restore from checkpoint {}: {} rows tagged {} or later,"
                        + " {} keys set from state, {} stale keys deleted, in {} ms",
                store.tableName(),
                checkpointId,
                taggedSinceRestore.size(),
                checkpointId,
                report.keysSet(),
                report.keysDeleted(),
                report.durationMillis());
        return report;
    }

    private int writeAndClear(List<StoredRow<K, V>> batch) {
        int n = batch.size();
        if (n > 0) {
            writer.write(List.copyOf(batch));
            batch.clear();
        }
        return n;
    }
}
