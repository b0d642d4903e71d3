package io.effonce.job.migrate;

import static io.effonce.job.migrate.DedupHarnesses.late;
import static io.effonce.job.migrate.DedupHarnesses.open;
import static io.effonce.job.migrate.DedupHarnesses.operator;
import static io.effonce.job.migrate.DedupHarnesses.passed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.dedup.LateCopy;
import java.time.Duration;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The dedup rules on one subtask, without restores (dedup/README.md, rules 1 and 2). */
class EventTimeDedupOperatorTest {

    /** 2 h, as in the seed: 7,200 s. */
    private static final long H = Duration.ofHours(2).toMillis();

    private static final long T = 1_000_000L;
    private static final Change EV_7 = new Change("pay_7:SUCCEEDED", "m1", 3_000);
    private static final Change EV_8 = new Change("pay_8:SUCCEEDED", "m1", 1_000);

    private static EventTimeDedup<Change> dedup() {
        return EventTimeDedup.<Change>builder().build();
    }

    @Test
    void firstCopyPassesAndLaterCopiesWithinTheHorizonAreDropped() throws Exception {
        try (var h = open(dedup())) {
            h.processElement(EV_7, T);
            h.processElement(EV_8, T + 10);
            h.processWatermark(T + H - 1);
            h.processElement(EV_7, T);
            h.processElement(EV_7, T);
            h.processElement(EV_8, T + 10);

            assertThat(passed(h)).containsExactly(EV_7, EV_8);
            assertThat(late(h)).isEmpty();
            assertThat(operator(h).passedCount()).isEqualTo(2);
            assertThat(operator(h).duplicatesDroppedCount()).isEqualTo(3);
            assertThat(operator(h).lateRejectedCount()).isZero();
        }
    }

    @Test
    void idIsForgottenOnceTheWatermarkReachesEventTimePlusHorizon() throws Exception {
        try (var h = open(dedup())) {
            h.processElement(EV_7, T);
            h.processElement(EV_8, T + 10);
            assertThat(h.numEventTimeTimers()).isEqualTo(2);
            assertThat(h.numKeyedStateEntries()).isEqualTo(2);

            h.processWatermark(T + H);
            assertThat(h.numEventTimeTimers()).isEqualTo(1);
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);

            h.processWatermark(T + 10 + H);
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(h.numKeyedStateEntries()).isZero();

            // Forgotten: the same ID with a later event time is a new event and passes.
            h.processElement(EV_7, T + H + 1);
            assertThat(passed(h)).containsExactly(EV_7, EV_8, EV_7);
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
        }
    }

    @Test
    void copyExactlyAtTheBoundaryIsLateAndLeavesStateUntouched() throws Exception {
        try (var h = open(dedup())) {
            h.processWatermark(T + H); // event time + horizon == watermark
            h.processElement(EV_7, T);

            assertThat(passed(h)).isEmpty();
            assertThat(late(h)).containsExactly(new LateCopy<>(EV_7, T, T + H, T + H));
            assertThat(h.getSideOutput(LateCopy.tag(DedupHarnesses.CHANGE_TYPE)))
                    .extracting(StreamRecord::getTimestamp)
                    .containsExactly(T);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
            assertThat(operator(h).lateRejectedCount()).isEqualTo(1);
        }
    }

    @Test
    void sameBoundaryDecidesExpirySoNoAcceptedCopyMissesItsOriginal() throws Exception {
        try (var h = open(dedup())) {
            h.processElement(EV_7, T);
            for (long watermark = T + H - 3; watermark <= T + H + 3; watermark++) {
                h.processWatermark(watermark);
                h.processElement(EV_7, T);
                boolean remembered = h.numKeyedStateEntries() == 1;
                // Until the boundary the original is in state; from the boundary on, copies are
                // late. Never both forgotten and accepted.
                assertThat(remembered).isEqualTo(watermark < T + H);
                assertThat(passed(h)).as("watermark %s", watermark).containsExactly(EV_7);
            }
            assertThat(operator(h).duplicatesDroppedCount()).isEqualTo(3);
            assertThat(operator(h).lateRejectedCount()).isEqualTo(4);
        }
    }

    @Test
    void initialWatermarkAndEventTimesNearTheEndOfTimeDoNotOverflow() throws Exception {
        try (var h = open(dedup())) {
            // Live watermark is Long.MIN_VALUE here; event time + horizon must not wrap around.
            h.processElement(EV_7, Long.MAX_VALUE - 1);
            h.processElement(EV_8, Long.MIN_VALUE + 1);
            h.processElement(EV_7, Long.MAX_VALUE - 1);
            assertThat(passed(h)).containsExactly(EV_7, EV_8);
            assertThat(operator(h).expiryOf(Long.MAX_VALUE - 1)).isEqualTo(Long.MAX_VALUE);

            h.processWatermark(Long.MAX_VALUE - 2);
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            // The end-of-input watermark (a drain) expires nothing and is forwarded.
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            assertThat(h.numEventTimeTimers()).isEqualTo(1);
            assertThat(operator(h).watermarkFloor()).isEqualTo(Long.MAX_VALUE - 2);
        }
    }

    @Test
    void floorGaugeFollowsTheLargestWatermarkAndNeverGoesBack() throws Exception {
        try (var h = open(dedup())) {
            assertThat(operator(h).watermarkFloor()).isEqualTo(Long.MIN_VALUE);
            h.processWatermark(T);
            h.processWatermark(T - 5);
            assertThat(operator(h).watermarkFloor()).isEqualTo(T);
        }
    }

    @Test
    void recordWithoutTimestampFailsWithAClearMessage() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<String, Change, Change> h = open(dedup())) {
            assertThatThrownBy(() -> h.processElement(new StreamRecord<>(EV_7)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no timestamp");
        }
    }

    @Test
    void processingTimeTtlCanGuardTheSeenIds() throws Exception {
        EventTimeDedup<Change> withTtl =
                EventTimeDedup.<Change>builder()
                        .horizon(Duration.ofMinutes(30))
                        .stateTtl(Duration.ofHours(2))
                        .build();
        try (var h = open(withTtl)) {
            h.processElement(EV_7, T);
            h.processElement(EV_7, T);
            assertThat(passed(h)).containsExactly(EV_7);
            h.processWatermark(T + Duration.ofMinutes(30).toMillis());
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }
}
