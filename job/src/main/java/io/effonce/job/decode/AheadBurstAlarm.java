package io.effonce.job.decode;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices when most of a partition's records turn into {@code event-time-ahead} dead letters: one
 * change with a wrong clock is a dead letter like any other, but half of a window of them is a
 * clock the whole stream shares — most likely the broker's, running slow — and while it lasts the
 * totals stop moving. Each such window logs one warning that names the cause and counts one burst
 * ({@code eventTimeAheadBursts}), so an alert can fire instead of a silent drain.
 */
final class AheadBurstAlarm {

    private static final Logger LOG = LoggerFactory.getLogger(AheadBurstAlarm.class);

    /** Records per partition judged together. */
    static final int WINDOW = 200;

    /** Share of a window's records that makes a burst. */
    static final double SHARE = 0.5;

    private final Duration tolerance;
    private final Counter bursts;
    private final Map<Partition, int[]> windows = new HashMap<>();

    /** The last partition's window: a source reader's records come in runs of one partition. */
    private Partition last;

    private int[] lastWindow;

    private record Partition(String topic, int partition) {}

    AheadBurstAlarm(Duration tolerance, Counter bursts) {
        this.tolerance = tolerance;
        this.bursts = bursts;
    }

    AheadBurstAlarm(Duration tolerance) {
        this(tolerance, new SimpleCounter());
    }

    /** Counts one decoded record of {@code topic}'s {@code partition}; true if it ended a burst. */
    boolean observe(String topic, int partition, LedgerRecord record) {
        int[] window = windowOf(topic, partition);
        window[0]++;
        if (isAhead(record)) {
            window[1]++;
        }
        if (window[0] < WINDOW) {
            return false;
        }
        int ahead = window[1];
        window[0] = 0;
        window[1] = 0;
        if (ahead < WINDOW * SHARE) {
            return false;
        }
        bursts.inc();
        LOG.warn(
                "Partition {} of {}: {} of its last {} records are dead letters event-time-ahead:"
                        + " their updated_at or heartbeat lies more than event-time.tolerance ({})"
                        + " ahead of the Kafka record's timestamp, the broker's clock. So many at once"
                        + " is most likely the broker's clock running slow (or the ledger's running"
                        + " fast); the totals do not move while it lasts. Check the brokers' and the"
                        + " ledger's NTP; the dead letters stay in dead_letters with their raw values.",
                partition,
                topic,
                ahead,
                WINDOW,
                tolerance);
        return true;
    }

    private int[] windowOf(String topic, int partition) {
        if (last == null || last.partition != partition || !last.topic.equals(topic)) {
            last = new Partition(topic, partition);
            lastWindow = windows.computeIfAbsent(last, k -> new int[2]);
        }
        return lastWindow;
    }

    long bursts() {
        return bursts.getCount();
    }

    private static boolean isAhead(LedgerRecord record) {
        return record != null
                && record.deadLetter() != null
                && record.deadLetter().reason().startsWith(RejectReason.EVENT_TIME_AHEAD.code());
    }
}
