package io.effonce.sink.internal;

import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The live write path of a sink subtask: upserts and deletes wait in the {@link WriteBuffer}, one
 * per key, and are written as absolute SETs and deletes tagged with the last barrier passed, when
 * the batch is full, on the flush timer and before each barrier.
 */
final class LiveWriter<K, V> {

    private final WriteBuffer<K, V> buffer;
    private final QuarantiningWriter<K, V> writer;
    private final SinkMetrics metrics;
    private final int batchSize;
    private final ToIntFunction<K> keyGroupOf;

    LiveWriter(
            WriteBuffer<K, V> buffer,
            QuarantiningWriter<K, V> writer,
            SinkMetrics metrics,
            int batchSize,
            ToIntFunction<K> keyGroupOf) {
        this.buffer = buffer;
        this.writer = writer;
        this.metrics = metrics;
        this.batchSize = batchSize;
        this.keyGroupOf = keyGroupOf;
    }

    void put(K key, V value) {
        buffer.put(key, value);
    }

    void delete(K key) {
        buffer.delete(key);
    }

    boolean batchFull() {
        return buffer.size() >= batchSize;
    }

    /** Writes everything buffered, tagged {@code tag}. */
    void writeAll(long tag) {
        if (buffer.isEmpty()) {
            return;
        }
        List<StoredRow<K, V>> drained = buffer.drain(tag, keyGroupOf);
        Map<Boolean, List<StoredRow<K, V>>> split = StoredRow.byTombstone(drained);
        long start = System.nanoTime();
        int quarantined;
        try {
            quarantined = writer.write(split.get(false)) + writer.delete(split.get(true));
        } catch (FencedException e) {
            metrics.fencedWrites.inc();
            throw e;
        }
        metrics.batchWritten(drained.size() - quarantined, start);
    }
}
