package io.effonce.job;

import io.effonce.job.decode.LedgerRecord;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time of one Kafka partition: bounded out-of-orderness over streamed changes and heartbeats,
 * held still over the rows of the relay's initial snapshot.
 *
 * <p>A snapshot sends the ledger's history in primary-key order, which is random in event time. If
 * those rows moved the watermark, it would race to the newest history within the first poll, and
 * every older row behind it would be judged late and every day retired before its rows arrived.
 * Held still, the watermark starts moving with the first streamed record or heartbeat of the
 * partition; the relay publishes those only after the snapshot's last row (Debezium streams, and
 * heartbeats, after the snapshot), so on every partition the whole history is counted before event
 * time moves. Flink's watermark is the minimum over the partitions, so no day closes until every
 * partition is past its history.
 */
final class LedgerWatermarks implements WatermarkGenerator<LedgerRecord> {

    private final WatermarkGenerator<LedgerRecord> streamed;
    private final boolean holdDuringSnapshot;

    LedgerWatermarks(Duration outOfOrderness, boolean holdDuringSnapshot) {
        this.streamed = new BoundedOutOfOrdernessWatermarks<>(outOfOrderness);
        this.holdDuringSnapshot = holdDuringSnapshot;
    }

    /** The strategy of the job's source: timestamps, these watermarks, idleness. */
    static WatermarkStrategy<LedgerRecord> strategy(
            Duration outOfOrderness, boolean holdDuringSnapshot, Duration idleness) {
        return WatermarkStrategy.<LedgerRecord>forGenerator(
                        context -> new LedgerWatermarks(outOfOrderness, holdDuringSnapshot))
                .withTimestampAssigner((record, kafkaTime) -> record.eventTime())
                .withIdleness(idleness);
    }

    @Override
    public void onEvent(LedgerRecord record, long eventTime, WatermarkOutput output) {
        if (holdDuringSnapshot && record.snapshotRow()) {
            return;
        }
        streamed.onEvent(record, eventTime, output);
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        streamed.onPeriodicEmit(output);
    }
}
