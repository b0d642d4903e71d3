package io.effonce.sink.internal;

import java.util.function.LongSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/** The sink's metrics, under the operator's metric group. */
final class SinkMetrics {

    final Counter rowsWritten;
    final Counter batches;
    final Counter fencedWrites;
    final Counter quarantinedRows;
    final Histogram batchLatencyMillis;
    final Counter committedKeys;
    private volatile FlushReport lastFlush = FlushReport.NONE;
    private volatile long lastCommitted = -1;

    SinkMetrics(MetricGroup group, LongSupplier bufferSize, LongSupplier currentTag) {
        rowsWritten = group.counter("rowsWritten");
        batches = group.counter("batches");
        fencedWrites = group.counter("fencedWrites");
        quarantinedRows = group.counter("quarantinedRows");
        batchLatencyMillis =
                group.histogram("batchLatencyMillis", new DescriptiveStatisticsHistogram(1000));
        group.gauge("bufferSize", (Gauge<Long>) bufferSize::getAsLong);
        group.gauge("currentBarrierTag", (Gauge<Long>) currentTag::getAsLong);
        group.gauge("lastFlushKeysSet", (Gauge<Long>) () -> lastFlush.keysSet());
        group.gauge("lastFlushKeysDeleted", (Gauge<Long>) () -> lastFlush.keysDeleted());
        group.gauge("lastFlushDurationMillis", (Gauge<Long>) () -> lastFlush.durationMillis());
        // 1 when the last restore flush had to be full (the range's commits lagged the checkpoint).
        group.gauge(
                "lastFlushFull",
                (Gauge<Long>) () -> lastFlush.mode() == RestoreFlush.Mode.FULL ? 1L : 0L);
        committedKeys = group.counter("committedKeys");
        group.gauge("lastCommittedCheckpoint", (Gauge<Long>) () -> lastCommitted);
    }

    void committed(long checkpointId, int keys) {
        lastCommitted = checkpointId;
        committedKeys.inc(keys);
    }

    void flushed(FlushReport report) {
        lastFlush = report;
    }

    FlushReport lastFlush() {
        return lastFlush;
    }

    void batchWritten(int rows, long startNanos) {
        rowsWritten.inc(rows);
        batches.inc();
        batchLatencyMillis.update((System.nanoTime() - startNanos) / 1_000_000);
    }
}
