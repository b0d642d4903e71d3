package io.effonce.job.migrate;

import static io.effonce.job.migrate.DedupHarnesses.MAX_PARALLELISM;
import static io.effonce.job.migrate.DedupHarnesses.late;
import static io.effonce.job.migrate.DedupHarnesses.open;
import static io.effonce.job.migrate.DedupHarnesses.operator;
import static io.effonce.job.migrate.DedupHarnesses.passed;
import static org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness.repackageState;
import static org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness.repartitionOperatorState;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.dedup.LateCopy;
import java.time.Duration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.junit.jupiter.api.Test;

/**
 * dedup/README.md, rule 4: Flink does not checkpoint watermarks, so the operator keeps a floor.
 * After a restore, before any new watermark, a copy that was late before the crash must still be
 * rejected, on every subtask, whatever the new parallelism.
 */
class WatermarkFloorRestoreTest {

    private static final long H = Duration.ofHours(2).toMillis();
    private static final long T = 1_000_000L;
    private static final Change EV_7 = new Change("pay_7:SUCCEEDED", "m1", 3_000);

    /**
     * Before the crash: ev_7 passes, the watermark passes T + H so its ID is forgotten, a
     * checkpoint is taken. After the restore the live watermark is Long.MIN_VALUE again and a copy
     * of ev_7 arrives (the relay restarted from an older position).
     */
    private static int timesEv7PassedAcrossTheRestore(boolean floor) throws Exception {
        EventTimeDedup<Change> dedup =
                EventTimeDedup.<Change>builder().watermarkFloor(floor).build();
        OperatorSubtaskState snapshot;
        int passedBefore;
        try (var before = open(dedup)) {
            before.processElement(EV_7, T);
            before.processWatermark(T + H + 1);
            assertThat(before.numKeyedStateEntries()).isZero();
            before.processElement(EV_7, T);
            assertThat(late(before)).hasSize(1); // late before the crash
            passedBefore = passed(before).size();
            snapshot = before.snapshot(1L, 1L);
        }
        try (var after = open(dedup, snapshot)) {
            after.processElement(EV_7, T);
            return passedBefore + passed(after).size();
        }
    }

    @Test
    void lateCopyAfterRestoreIsRejectedByTheFloor() throws Exception {
        assertThat(timesEv7PassedAcrossTheRestore(true)).isEqualTo(1);
    }

    /** Counterfactual: why the floor exists. */
    @Test
    void withoutTheFloorALateCopyAfterRestoreIsCountedTwice() throws Exception {
        assertThat(timesEv7PassedAcrossTheRestore(false)).isEqualTo(2);
    }

    @Test
    void restoredFloorIsReportedOnTheLateCopy() throws Exception {
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        OperatorSubtaskState snapshot;
        try (var before = open(dedup)) {
            before.processWatermark(T + H + 1);
            snapshot = before.snapshot(1L, 1L);
        }
        try (var after = open(dedup, snapshot)) {
            assertThat(operator(after).watermarkFloor()).isEqualTo(T + H + 1);
            after.processElement(EV_7, T);
            assertThat(late(after))
                    .containsExactly(new LateCopy<>(EV_7, T, Long.MIN_VALUE, T + H + 1));
            assertThat(after.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void afterRescaleEverySubtaskTakesTheMaximumFloor() throws Exception {
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        OperatorSubtaskState first;
        OperatorSubtaskState second;
        try (var s0 = open(dedup, null, null, 2, 0);
                var s1 = open(dedup, null, null, 2, 1)) {
            s0.processWatermark(T);
            s1.processWatermark(T + H + 1); // one subtask is ahead
            first = s0.snapshot(1L, 1L);
            second = s1.snapshot(1L, 1L);
        }
        OperatorSubtaskState both = repackageState(first, second);

        for (int newParallelism : new int[] {3, 1}) {
            for (int subtask = 0; subtask < newParallelism; subtask++) {
                OperatorSubtaskState mine =
                        repartitionOperatorState(both, MAX_PARALLELISM, 2, newParallelism, subtask);
                try (var h = open(dedup, mine, null, newParallelism, subtask)) {
                    assertThat(operator(h).watermarkFloor())
                            .as("subtask %s of %s", subtask, newParallelism)
                            .isEqualTo(T + H + 1);
                }
            }
        }
    }

    @Test
    void rememberedIdsSurviveTheRestoreAndStillDropCopies() throws Exception {
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        OperatorSubtaskState snapshot;
        try (var before = open(dedup)) {
            before.processElement(EV_7, T);
            before.processWatermark(T + 1);
            snapshot = before.snapshot(1L, 1L);
        }
        try (var after = open(dedup, snapshot)) {
            assertThat(after.numEventTimeTimers()).isEqualTo(1);
            after.processElement(EV_7, T);
            assertThat(passed(after)).isEmpty();
            assertThat(operator(after).duplicatesDroppedCount()).isEqualTo(1);
            after.processWatermark(T + H);
            assertThat(after.numKeyedStateEntries()).isZero();
            assertThat(after.numEventTimeTimers()).isZero();
        }
    }

    /**
     * A stop-with-savepoint with drain ends with the MAX watermark. Restored from that savepoint, a
     * new change passes, a copy within the horizon is still a duplicate (its ID was not expired by
     * the drain), and a copy older than the last real watermark's horizon is still late.
     */
    @Test
    void aDrainedSavepointRestoresWithTheLastRealWatermarkAsFloor() throws Exception {
        Change ev9 = new Change("pay_9:SUCCEEDED", "m1", 500);
        Change ev10 = new Change("pay_10:SUCCEEDED", "m2", 700);
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        OperatorSubtaskState drained;
        try (var before = open(dedup)) {
            before.processElement(EV_7, T);
            before.processWatermark(T + H + 1); // ev_7's ID expires: a copy of it is now late
            before.processElement(ev9, T + H + 10);
            before.processWatermark(Long.MAX_VALUE); // the drain
            assertThat(operator(before).watermarkFloor()).isEqualTo(T + H + 1);
            assertThat(before.numKeyedStateEntries()).as("ev_9 still remembered").isEqualTo(1);
            assertThat(before.getOutput())
                    .anySatisfy(e -> assertThat(e).isEqualTo(new Watermark(Long.MAX_VALUE)));
            drained = before.snapshot(1L, 1L);
        }
        try (var after = open(dedup, drained)) {
            after.processElement(ev10, T + H + 20); // new: counted
            after.processElement(ev9, T + H + 10); // a re-delivered copy: dropped
            after.processElement(EV_7, T); // older than the floor's horizon: late
            assertThat(passed(after)).containsExactly(ev10);
            assertThat(late(after)).extracting(LateCopy::record).containsExactly(EV_7);
            assertThat(operator(after).duplicatesDroppedCount()).isEqualTo(1);
        }
    }
}
