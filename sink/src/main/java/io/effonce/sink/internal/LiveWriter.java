package io.effonce.sink.internal;

import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * The live write path of a sink subtask: upserts and deletes wait in the {@link WriteBuffer}, one
 * per key, and are written as absolute SETs and deletes tagged with the last barrier passed, when
 * the batch is full, on the flush timer and before each barrier; not while the attempt may not
 * write yet (it owns no range until its first barrier).
 */
final class LiveWriter<K, V> {

    private final WriteBuffer<K, V> buffer;
    private final QuarantiningWriter<K, V> writer;
    private final SinkMetrics metrics;
    private final int batchSize;
    private final ToIntFunction<K> keyGroupOf;
    private final LongSupplier tag;
    private final BooleanSupplier mayWrite;

    LiveWriter(
            WriteBuffer<K, V> buffer,
            QuarantiningWriter<K, V> writer,
            SinkMetrics metrics,
            int batchSize,
            ToIntFunction<K> keyGroupOf,
            LongSupplier tag,
            BooleanSupplier mayWrite) {
        this.buffer = buffer;
        this.writer = writer;
        this.metrics = metrics;
        this.batchSize = batchSize;
        this.keyGroupOf = keyGroupOf;
        this.tag = tag;
        this.mayWrite = mayWrite;
    }

    void put(K key, V value) {
        buffer.put(key, value);
        writeIfFull();
    }

    void delete(K key) {
        buffer.delete(key);
        writeIfFull();
    }

    /** Writes what is buffered every {@code intervalMillis}, on the task thread. */
    void scheduleWrites(ProcessingTimeService timers, long intervalMillis) {
        timers.registerTimer(
                timers.getCurrentProcessingTime() + intervalMillis,
                time -> {
                    writeAll();
                    scheduleWrites(timers, intervalMillis);
                });
    }

    private void writeIfFull() {
        if (buffer.size() >= batchSize) {
            writeAll();
        }
    }

    /** Writes everything buffered, tagged with the last barrier passed. */
    void writeAll() {
        if (buffer.isEmpty() || !mayWrite.getAsBoolean()) {
            return;
        }
        List<StoredRow<K, V>> drained = buffer.drain(tag.getAsLong(), keyGroupOf);
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
