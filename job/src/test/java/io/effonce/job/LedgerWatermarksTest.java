package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.PaymentChange;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

class LedgerWatermarksTest {

    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final long OUT_OF_ORDERNESS = 5_000;

    private final ManualClock clock = new ManualClock();

    @Test
    void snapshotRowsHoldEventTimeUntilTheFirstStreamedRecord() {
        LedgerWatermarks watermarks = watermarks(true);
        Emitted out = new Emitted();

        feed(watermarks, LedgerRecord.snapshotRow(change(10 * DAY)), out);
        feed(watermarks, LedgerRecord.snapshotRow(change(3 * DAY)), out);
        assertThat(out.last())
                .as("watermark over history only: held, yet a watermark")
                .isEqualTo(LedgerWatermarks.HELD);

        feed(watermarks, LedgerRecord.of(change(12 * DAY)), out);
        assertThat(out.last()).isEqualTo(12 * DAY - OUT_OF_ORDERNESS - 1);
    }

    @Test
    void aHeartbeatAfterTheSnapshotMovesEventTime() {
        LedgerWatermarks watermarks = watermarks(true);
        Emitted out = new Emitted();
        feed(watermarks, LedgerRecord.snapshotRow(change(10 * DAY)), out);
        feed(watermarks, LedgerRecord.heartbeat(11 * DAY), out);
        assertThat(out.last()).isEqualTo(11 * DAY - OUT_OF_ORDERNESS - 1);
    }

    @Test
    void withoutTheHoldTheNewestHistoryRowMovesEventTimeAtOnce() {
        LedgerWatermarks watermarks = watermarks(false);
        Emitted out = new Emitted();
        feed(watermarks, LedgerRecord.snapshotRow(change(10 * DAY)), out);
        feed(watermarks, LedgerRecord.snapshotRow(change(3 * DAY)), out);
        // The row of day 3 would now be eight days late.
        assertThat(out.last()).isEqualTo(10 * DAY - OUT_OF_ORDERNESS - 1);
    }

    @Test
    void aPartitionInsideItsSnapshotNeverGoesIdleButOnePastItDoes() {
        LedgerWatermarks watermarks = watermarks(true);
        Emitted out = new Emitted();
        feed(watermarks, LedgerRecord.snapshotRow(change(10 * DAY)), out);
        silence(watermarks, out);
        assertThat(out.idle).as("idle inside the snapshot").isFalse();

        feed(watermarks, LedgerRecord.of(change(12 * DAY)), out);
        silence(watermarks, out);
        assertThat(out.idle).as("idle after the snapshot").isTrue();
    }

    @Test
    void aPartitionIdleBeforeItsHistoryArrivesIsActiveAgainWithItsFirstRow() {
        LedgerWatermarks watermarks = watermarks(true);
        Emitted out = new Emitted();
        silence(watermarks, out);
        assertThat(out.idle).as("idle with nothing read").isTrue();

        feed(watermarks, LedgerRecord.snapshotRow(change(10 * DAY)), out);
        assertThat(out.idle).as("idle while reading history").isFalse();
    }

    /**
     * A subtask whose partition's first fetch comes a second late, with a 100 ms idleness: it stays
     * active until the hold is over (and its history arrives in time); with no hold it is idle at
     * the first periodic emit after the idleness, and the other partitions' present moves the job's
     * watermark past its whole history.
     */
    @Test
    void aSubtaskThatHasReadNothingYetStaysActiveForTheStartHold() {
        LedgerWatermarks held = watermarks(true);
        Emitted out = new Emitted();
        emitFor(held, Duration.ofSeconds(1), out);
        assertThat(out.idle).as("a second without a record, inside the hold").isFalse();
        assertThat(out.marks).as("and no event time moved").isEmpty();
        emitFor(held, Duration.ofSeconds(30), out);
        assertThat(out.idle).as("the hold over, a subtask with no partition goes idle").isTrue();

        LedgerWatermarks notHeld = watermarks(true, Duration.ZERO);
        Emitted unheld = new Emitted();
        emitFor(notHeld, Duration.ofSeconds(1), unheld);
        assertThat(unheld.idle).as("without the hold: idle before its first fetch").isTrue();
    }

    /** Periodic emits every 200 ms (Flink's default interval) for {@code duration}. */
    private void emitFor(LedgerWatermarks watermarks, Duration duration, Emitted out) {
        for (long ms = 0; ms < duration.toMillis(); ms += 200) {
            clock.advanceTime(Duration.ofMillis(200));
            watermarks.onPeriodicEmit(out);
        }
    }

    /** Ten silent minutes, with periodic emits as Flink calls them. */
    private void silence(LedgerWatermarks watermarks, Emitted out) {
        for (int minute = 0; minute < 10; minute++) {
            watermarks.onPeriodicEmit(out);
            clock.advanceTime(Duration.ofMinutes(1));
        }
        watermarks.onPeriodicEmit(out);
    }

    private LedgerWatermarks watermarks(boolean hold) {
        return watermarks(hold, Duration.ofSeconds(30));
    }

    private LedgerWatermarks watermarks(boolean hold, Duration startHold) {
        return new LedgerWatermarks(
                Duration.ofSeconds(5), hold, Duration.ofMillis(100), startHold, clock);
    }

    private static void feed(LedgerWatermarks watermarks, LedgerRecord record, Emitted out) {
        watermarks.onEvent(record, record.eventTime(), out);
        watermarks.onPeriodicEmit(out);
    }

    private static PaymentChange change(long eventTime) {
        return new PaymentChange(
                "p" + eventTime,
                "m1",
                100,
                "EUR",
                "SUCCEEDED",
                eventTime,
                LocalDate.ofEpochDay(eventTime / DAY),
                "t",
                0,
                0);
    }

    private static final class Emitted implements WatermarkOutput {
        private final List<Long> marks = new ArrayList<>();
        private boolean idle;

        /** The last watermark emitted; none yet reads as the start of time. */
        long last() {
            return marks.isEmpty() ? Long.MIN_VALUE : marks.get(marks.size() - 1);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            marks.add(watermark.getTimestamp());
            idle = false;
        }

        @Override
        public void markIdle() {
            idle = true;
        }

        @Override
        public void markActive() {
            idle = false;
        }
    }
}
