package io.effonce.job;

import io.effonce.job.decode.LedgerRecord;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.eventtime.WatermarksWithIdleness;
import org.apache.flink.util.clock.RelativeClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Event time of one Kafka partition: bounded out-of-orderness over streamed changes and heartbeats,
 * with idleness, held still over the rows of the relay's initial snapshot.
 *
 * <p>A snapshot sends the ledger's history in primary-key order, which is random in event time. If
 * those rows moved the watermark, it would race to the newest history within the first poll, and
 * every older row behind it would be judged late and every day retired before its rows arrived.
 * Held still, the watermark starts moving with the first streamed record or heartbeat of the
 * partition; the relay publishes those only after the snapshot's last row (Debezium streams, and
 * heartbeats, after the snapshot), so on every partition the whole history is counted before event
 * time moves. Flink's watermark is the minimum over the partitions, so no day closes until every
 * partition is past its history.
 *
 * <p>For the same reason a partition inside its snapshot never goes idle: an idle partition drops
 * out of that minimum, and the other partitions' event time, already in the present, would judge
 * the rest of its history late (measured: 842 late changes over 200,000 payments with a 300 ms
 * idleness). A partition past its snapshot goes idle as usual.
 *
 * <p>Nor does a source subtask go idle in its first {@code watermark.start-hold} before it read
 * anything. A partition's first fetch can come later than {@code watermark.idleness} on a busy
 * machine; had its subtask gone idle meanwhile, the others' present would have moved the job's
 * watermark, which never goes back, and its whole history would be judged late (seen once in {@code
 * SnapshotHoldITCase} at a 100 ms idleness: 60,000 late changes). A subtask that owns no partition
 * goes idle once the hold is over.
 */
final class LedgerWatermarks implements WatermarkGenerator<LedgerRecord> {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerWatermarks.class);

    /**
     * The watermark of a partition inside its snapshot: the earliest there is, so it moves no event
     * time and judges nothing late, but a real watermark. Flink counts a source subtask as idle
     * when its split outputs have never emitted a watermark and its main output is idle; the main
     * output's generator sees no record (Kafka emits per split), so after {@code
     * watermark.idleness} it goes idle, and a subtask whose partitions all hold still would drop
     * out of the job's watermark while its history is still being read (measured: 7,428 to 29,537
     * late changes over 1,000,000 payments before this).
     */
    static final long HELD = Long.MIN_VALUE + 1;

    private final WatermarkGenerator<LedgerRecord> streamed;
    private final boolean holdDuringSnapshot;
    private final RelativeClock clock;
    private final long startHoldMillis;
    private final long startedAt;
    private boolean recordSeen;
    private boolean inSnapshot;
    private boolean streamedSeen;

    LedgerWatermarks(
            Duration outOfOrderness,
            boolean holdDuringSnapshot,
            Duration idleness,
            Duration startHold,
            RelativeClock clock) {
        WatermarkGenerator<LedgerRecord> bounded =
                new BoundedOutOfOrdernessWatermarks<>(outOfOrderness);
        this.streamed =
                idleness.isZero()
                        ? bounded
                        : new WatermarksWithIdleness<>(bounded, idleness, clock);
        this.holdDuringSnapshot = holdDuringSnapshot;
        this.clock = clock;
        this.startHoldMillis = startHold.toMillis();
        this.startedAt = clock.relativeTimeMillis();
    }

    /** The strategy of the job's source: timestamps and these watermarks. */
    static WatermarkStrategy<LedgerRecord> strategy(
            Duration outOfOrderness,
            boolean holdDuringSnapshot,
            Duration idleness,
            Duration startHold) {
        return WatermarkStrategy.<LedgerRecord>forGenerator(
                        context ->
                                new LedgerWatermarks(
                                        outOfOrderness,
                                        holdDuringSnapshot,
                                        idleness,
                                        startHold,
                                        context.getInputActivityClock()))
                .withTimestampAssigner((record, kafkaTime) -> record.eventTime());
    }

    @Override
    public void onEvent(LedgerRecord record, long eventTime, WatermarkOutput output) {
        recordSeen = true;
        boolean snapshotRow = holdDuringSnapshot && record.snapshotRow();
        if (snapshotRow && !inSnapshot) {
            // The partition may have gone idle before its history arrived: count it again, and
            // emit HELD so that Flink counts the whole source subtask as active (see HELD).
            output.markActive();
            output.emitWatermark(new Watermark(HELD));
            if (streamedSeen) {
                LOG.warn(
                        "A snapshot row after streamed records at {}: the history behind event"
                                + " time may be judged late (was the relay's snapshot re-run?)",
                        where(record));
            }
        } else if (!snapshotRow && inSnapshot) {
            LOG.info("Past the relay's snapshot at {}: event time moves", where(record));
        }
        streamedSeen |= !snapshotRow && record.change() != null;
        inSnapshot = snapshotRow;
        if (!inSnapshot) {
            streamed.onEvent(record, eventTime, output);
        }
    }

    private static String where(LedgerRecord record) {
        if (record.change() != null) {
            return record.change().topic()
                    + "-"
                    + record.change().partition()
                    + " offset "
                    + record.change().offset()
                    + " (event time "
                    + Instant.ofEpochMilli(record.change().eventTimeMillis())
                    + ")";
        }
        return record.isHeartbeat() ? "a heartbeat" : "a dead letter";
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        if (!recordSeen && clock.relativeTimeMillis() - startedAt < startHoldMillis) {
            return; // neither moves nor goes idle: its partitions may not have been fetched yet
        }
        if (!inSnapshot) {
            streamed.onPeriodicEmit(output);
        }
    }
}
