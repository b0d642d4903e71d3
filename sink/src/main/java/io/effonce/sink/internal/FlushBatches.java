package io.effonce.sink.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * A restore flush's SETs of restored values, in batches, tagged with the restored checkpoint (and,
 * when the flush restages, staged at it).
 */
final class FlushBatches<K, V> {

    private final QuarantiningWriter<K, V> writer;
    private final ToIntFunction<K> keyGroupOf;
    private final int batchSize;
    private final long tag;
    private final boolean restage;
    private final List<StoredRow<K, V>> batch;
    long set;

    FlushBatches(
            QuarantiningWriter<K, V> writer,
            ToIntFunction<K> keyGroupOf,
            int batchSize,
            long tag,
            boolean restage) {
        this.writer = writer;
        this.keyGroupOf = keyGroupOf;
        this.batchSize = batchSize;
        this.tag = tag;
        this.restage = restage;
        this.batch = new ArrayList<>(batchSize);
    }

    void add(K key, V value) {
        batch.add(new StoredRow<>(key, value, keyGroupOf.applyAsInt(key), tag));
        if (batch.size() >= batchSize) {
            writeRest();
        }
    }

    void writeRest() {
        if (!batch.isEmpty()) {
            List<StoredRow<K, V>> rows = List.copyOf(batch);
            writer.write(rows);
            if (restage) {
                writer.stage(tag, rows);
            }
            set += batch.size();
            batch.clear();
        }
    }
}
