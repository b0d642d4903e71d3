package io.effonce.cdc;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the relay's position, changes per second and how long its last change took from the ledger's
 * commit to Kafka's acknowledgement, at a fixed interval.
 */
final class HealthLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HealthLog.class);

    private final RelayMetrics metrics;
    private final ScheduledExecutorService timer;
    private long lastChanges;
    private long lastSnapshotRows;
    private long lastAtNanos = System.nanoTime();
    private DelayHistogram.Snapshot lastCommitToRelay;
    private DelayHistogram.Snapshot lastRelayToAck;

    HealthLog(RelayMetrics metrics, Duration interval) {
        this.metrics = metrics;
        this.lastCommitToRelay = metrics.commitToRelay().snapshot();
        this.lastRelayToAck = metrics.relayToAck().snapshot();
        this.timer =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "relay-health");
                            t.setDaemon(true);
                            return t;
                        });
        long ms = interval.toMillis();
        timer.scheduleAtFixedRate(this::log, ms, ms, TimeUnit.MILLISECONDS);
    }

    private void log() {
        long now = System.nanoTime();
        long changes = metrics.changesPublished();
        double seconds = Math.max(1e-9, (now - lastAtNanos) / 1e9);
        double rate = (changes - lastChanges) / seconds;
        lastChanges = changes;
        lastAtNanos = now;
        long delay = metrics.lastChangeDelayMs();
        String lastDelay = delay < 0 ? "n/a" : delay + " ms";
        LOG.info(
                "Relay health: lsn {}, {} changes/s, last change {} from commit to Kafka ack,"
                        + " {} changes and {} heartbeats published",
                RelayMetrics.formatLsn(metrics.lastLsn()),
                String.format("%.0f", rate),
                lastDelay,
                changes,
                metrics.heartbeatsPublished());
        DelayHistogram.Snapshot toRelay = metrics.commitToRelay().snapshot();
        DelayHistogram.Snapshot toAck = metrics.relayToAck().snapshot();
        if (toRelay.since(lastCommitToRelay).count() > 0) {
            LOG.info(
                    "Relay delays since the last line: commit to relay {}; relay to Kafka ack {}",
                    toRelay.since(lastCommitToRelay),
                    toAck.since(lastRelayToAck));
        }
        lastCommitToRelay = toRelay;
        lastRelayToAck = toAck;
        long snapshotRows = metrics.snapshotRowsPublished();
        if (snapshotRows != lastSnapshotRows) { // while the snapshot moves, and once when it ends
            lastSnapshotRows = snapshotRows;
            LOG.info(
                    "Relay snapshot: {} rows of the existing ledger published, {}",
                    snapshotRows,
                    metrics.snapshotEnded() ? "ended" : "in progress");
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
