package io.effonce.sink.internal;

import io.effonce.sink.Progress;
import java.util.function.BooleanSupplier;
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
    private final Counter fullFlushes;
    private final Counter incrementalFlushes;
    private volatile FlushReport lastFlush = FlushReport.NONE;
    private volatile long lastCommitted = -1;
    private volatile long lastCommitMillis = Long.MIN_VALUE;
    private volatile long lastCommittedWatermark = Long.MIN_VALUE;

    private final MetricGroup group;

    SinkMetrics(MetricGroup group, LongSupplier bufferSize) {
        this.group = group;
        rowsWritten = group.counter("rowsWritten");
        batches = group.counter("batches");
        fencedWrites = group.counter("fencedWrites");
        quarantinedRows = group.counter("quarantinedRows");
        batchLatencyMillis =
                group.histogram("batchLatencyMillis", new DescriptiveStatisticsHistogram(1000));
        group.gauge("bufferSize", (Gauge<Long>) bufferSize::getAsLong);
        group.gauge("lastFlushKeysSet", (Gauge<Long>) () -> lastFlush.keysSet());
        group.gauge("lastFlushKeysDeleted", (Gauge<Long>) () -> lastFlush.keysDeleted());
        group.gauge("lastFlushDurationMillis", (Gauge<Long>) () -> lastFlush.durationMillis());
        // 1 when the last restore flush had to be full (the range's commits lagged the checkpoint).
        group.gauge(
                "lastFlushFull",
                (Gauge<Long>) () -> lastFlush.mode() == RestoreFlush.Mode.FULL ? 1L : 0L);
        // How this attempt's restore flushes ran: a full one means the range's proof lagged.
        fullFlushes = group.counter("restoreFlushesFull");
        incrementalFlushes = group.counter("restoreFlushesIncremental");
        committedKeys = group.counter("committedKeys");
        group.gauge("lastCommittedCheckpoint", (Gauge<Long>) () -> lastCommitted);
        // How far behind the committed view is, read at each scrape (-1 before the first commit):
        // since the last commit in wall-clock time, and behind now in event time (the watermark
        // the last commit covered; it stops when no change or heartbeat arrives).
        group.gauge(
                "secondsSinceLastCommit", (Gauge<Double>) () -> secondsBefore(lastCommitMillis));
        group.gauge(
                "committedWatermarkLagSeconds",
                (Gauge<Double>) () -> secondsBefore(lastCommittedWatermark));
    }

    /**
     * 1 while the attempt holds its output until its first barrier (row 3b of {@link
     * StartDecision}: its range is owned by an attempt of another JobManager), 0 once it started.
     */
    void startWaits(BooleanSupplier awaitingFirstBarrier) {
        group.gauge(
                "awaitingFirstBarrier",
                (Gauge<Long>) () -> awaitingFirstBarrier.getAsBoolean() ? 1L : 0L);
    }

    /** The tag of the sink's writes now, once the checkpoint cycle runs. */
    void tagOf(LongSupplier currentTag) {
        group.gauge("currentBarrierTag", (Gauge<Long>) currentTag::getAsLong);
    }

    private static double secondsBefore(long millis) {
        return millis == Long.MIN_VALUE ? -1 : (System.currentTimeMillis() - millis) / 1000.0;
    }

    void committed(long checkpointId, int keys, Progress progress) {
        lastCommitted = checkpointId;
        lastCommitMillis = System.currentTimeMillis();
        if (progress.hasWatermark() && progress.watermark() != Long.MAX_VALUE) {
            lastCommittedWatermark = progress.watermark();
        }
        committedKeys.inc(keys);
    }

    void flushed(FlushReport report) {
        lastFlush = report;
        (report.mode() == RestoreFlush.Mode.FULL ? fullFlushes : incrementalFlushes).inc();
    }

    void batchWritten(int rows, long startNanos) {
        rowsWritten.inc(rows);
        batches.inc();
        batchLatencyMillis.update((System.nanoTime() - startNanos) / 1_000_000);
    }
}
