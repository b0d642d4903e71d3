package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.delete;
import static io.effonce.sink.testutils.SinkHarnesses.fresh;
import static io.effonce.sink.testutils.SinkHarnesses.restored;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.testutils.InMemoryTable;
import io.effonce.sink.testutils.InMemoryTable.ProgressRow;
import io.effonce.sink.testutils.UtcDaysFinal;
import java.time.Instant;
import java.time.LocalDate;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * The progress each commit records ({@code sink_progress}): the event time through which the
 * committed totals are complete is the watermark the subtask had at the committed checkpoint's
 * barrier — not the one it has when the notification arrives — and the last final day follows from
 * it. A restore keeps what its checkpoint recorded; restoring an older savepoint forgets it.
 */
class CommittedProgressTest {

    private static final long NOV_28_03H = millis("2026-11-28T03:00:00Z");
    private static final long NOV_29_01H = millis("2026-11-29T01:00:00Z");
    private static final long NOV_29_02H = millis("2026-11-29T02:00:00Z");

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    @Test
    void aCommitRecordsTheWatermarkOfItsBarrierNotTheCurrentOne() throws Exception {
        try (var h = fresh(sink(table).progress(UtcDaysFinal.RULE).build())) {
            upsert(h, "m1", 100);
            h.processWatermark(NOV_28_03H);
            checkpoint(h, 1);
            h.processWatermark(NOV_29_02H); // after the barrier: not part of checkpoint 1
            h.notifyOfCompletedCheckpoint(1);

            assertThat(progress())
                    .isEqualTo(new ProgressRow(1, NOV_28_03H, LocalDate.parse("2026-11-27")));

            checkpoint(h, 2);
            h.notifyOfCompletedCheckpoint(2);
            assertThat(progress())
                    .as("28 Nov ends at 29 Nov 00:00, plus the 2 h horizon: final at 02:00")
                    .isEqualTo(new ProgressRow(2, NOV_29_02H, LocalDate.parse("2026-11-28")));
        }
    }

    @Test
    void aLostNotificationIsCaughtUpWithTheWatermarkOfTheCheckpointCommitted() throws Exception {
        try (var h = fresh(sink(table).progress(UtcDaysFinal.RULE).build())) {
            h.processWatermark(NOV_28_03H);
            checkpoint(h, 1); // its notification is lost
            h.processWatermark(NOV_29_01H);
            checkpoint(h, 2);
            h.processWatermark(NOV_29_02H);
            checkpoint(h, 3);
            h.notifyOfCompletedCheckpoint(2);
            assertThat(progress().watermark()).isEqualTo(NOV_29_01H);
            h.notifyOfCompletedCheckpoint(3);
            assertThat(progress().watermark()).isEqualTo(NOV_29_02H);
        }
    }

    @Test
    void aRestoredRunKeepsTheProgressOfItsCheckpointUntilItsOwnWatermarkPassesIt()
            throws Exception {
        OperatorSubtaskState checkpoint1;
        try (var run = fresh(sink(table).progress(UtcDaysFinal.RULE).build())) {
            run.processWatermark(NOV_29_01H);
            checkpoint1 = checkpoint(run, 1);
            run.notifyOfCompletedCheckpoint(1);
        }
        try (var restored =
                restored(sink(table).progress(UtcDaysFinal.RULE).build(), checkpoint1, 1, 1, 0)) {
            assertThat(progress().watermark()).isEqualTo(NOV_29_01H);
            restored.processWatermark(NOV_28_03H); // the replay's first, lower watermark
            checkpoint(restored, 2);
            restored.notifyOfCompletedCheckpoint(2);
            assertThat(progress())
                    .as("never less than recorded: checkpoint 1 was complete through 01:00")
                    .isEqualTo(new ProgressRow(2, NOV_29_01H, LocalDate.parse("2026-11-27")));
        }
    }

    @Test
    void restoringAnOlderSavepointForgetsHowFarTheLaterCheckpointWent() throws Exception {
        OperatorSubtaskState savepoint1;
        try (var run = fresh(sink(table).progress(UtcDaysFinal.RULE).build())) {
            run.processWatermark(NOV_28_03H);
            savepoint1 = checkpoint(run, 1);
            run.notifyOfCompletedCheckpoint(1);
            run.processWatermark(NOV_29_02H);
            checkpoint(run, 3);
            run.notifyOfCompletedCheckpoint(3);
        }
        assertThat(progress().watermark()).isEqualTo(NOV_29_02H);

        try (var restored =
                restored(sink(table).progress(UtcDaysFinal.RULE).build(), savepoint1, 1, 1, 0)) {
            assertThat(progress())
                    .as("checkpoint 3's watermark does not hold for savepoint 1's totals")
                    .isEqualTo(new ProgressRow(1, Long.MIN_VALUE, null));
            restored.processWatermark(NOV_29_01H);
            checkpoint(restored, 4);
            restored.notifyOfCompletedCheckpoint(4);
            assertThat(progress().watermark()).isEqualTo(NOV_29_01H);
        }
    }

    @Test
    void aFreshStartOnARangeWithoutRowsBeginsItsOwnProgress() throws Exception {
        try (var earlier = fresh(sink(table).progress(UtcDaysFinal.RULE).build())) {
            upsert(earlier, "m1", 100);
            earlier.processWatermark(NOV_29_02H);
            checkpoint(earlier, 1);
            earlier.notifyOfCompletedCheckpoint(1);
            delete(earlier, "m1"); // a query that retracted every row
            checkpoint(earlier, 2);
            earlier.notifyOfCompletedCheckpoint(2);
            assertThat(table.values()).isEmpty();
        }
        try (var h = fresh(sink(table).progress(UtcDaysFinal.RULE).build())) {
            assertThat(table.progress()).as("the earlier run's progress is gone").isEmpty();
            checkpoint(h, 1);
            h.notifyOfCompletedCheckpoint(1);
            assertThat(progress()).isEqualTo(new ProgressRow(1, Long.MIN_VALUE, null));
        }
    }

    @Test
    void withoutAWatermarkNothingIsClaimed() throws Exception {
        try (var h = fresh(sink(table).progress(UtcDaysFinal.RULE).build())) {
            upsert(h, "m1", 100);
            checkpoint(h, 1);
            h.notifyOfCompletedCheckpoint(1);
            assertThat(progress()).isEqualTo(new ProgressRow(1, Long.MIN_VALUE, null));
        }
    }

    /** One subtask owns every key group, so all rows agree; returns one. */
    private ProgressRow progress() {
        assertThat(table.progress().values()).as("one value for every key group").hasSize(128);
        assertThat(table.progress().values().stream().distinct()).hasSize(1);
        return table.progress().values().iterator().next();
    }

    private static long millis(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }
}
