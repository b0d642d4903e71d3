package io.effonce.job.decode;

import static io.effonce.job.decode.Envelopes.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.JobOptions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * A broker whose clock runs slow makes every heartbeat and change look ahead: a window in which
 * most of a partition's records are {@code event-time-ahead} dead letters is one burst, counted and
 * logged once; an odd wrong clock, or another partition, is not.
 */
class AheadBurstAlarmTest {

    private static final Duration TOLERANCE = JobOptions.EVENT_TIME_TOLERANCE.defaultValue();
    private static final long APPENDED = Instant.parse("2026-12-01T09:00:00Z").toEpochMilli();
    private final ChangeDecoder decoder = new ChangeDecoder(ZoneOffset.UTC, 64, TOLERANCE);

    @Test
    void aWindowMostlyAheadIsOneBurstAndAnOddWrongClockIsNone() {
        AheadBurstAlarm alarm = new AheadBurstAlarm(TOLERANCE);
        int bursts = 0;
        // A broker an hour slow: every heartbeat of partition 0 is an hour ahead of it.
        for (int i = 0; i < AheadBurstAlarm.WINDOW; i++) {
            bursts += alarm.observe("t", 0, heartbeat(0, i, APPENDED + 3_600_000)) ? 1 : 0;
        }
        assertThat(bursts).as("one window, one burst").isEqualTo(1);

        // Partition 1 with one wrong clock in ten: dead letters, no burst.
        for (int i = 0; i < 3 * AheadBurstAlarm.WINDOW; i++) {
            long at = i % 10 == 0 ? APPENDED + 3_600_000 : APPENDED;
            bursts += alarm.observe("t", 1, heartbeat(1, i, at)) ? 1 : 0;
        }
        assertThat(bursts).isEqualTo(1);
        assertThat(alarm.bursts()).isEqualTo(1);

        // Half the window ahead is a burst; one record fewer is not.
        AheadBurstAlarm edge = new AheadBurstAlarm(TOLERANCE);
        int half = (int) (AheadBurstAlarm.WINDOW * AheadBurstAlarm.SHARE);
        for (int i = 0; i < AheadBurstAlarm.WINDOW; i++) {
            edge.observe("t", 2, heartbeat(2, i, i < half - 1 ? APPENDED + 3_600_000 : APPENDED));
        }
        assertThat(edge.bursts()).isZero();
        for (int i = 0; i < AheadBurstAlarm.WINDOW; i++) {
            edge.observe("t", 2, heartbeat(2, i, i < half ? APPENDED + 3_600_000 : APPENDED));
        }
        assertThat(edge.bursts()).isEqualTo(1);
    }

    /**
     * Records of two partitions interleaved, as a reader's fetches mix them: each its own window.
     */
    @Test
    void interleavedPartitionsAreJudgedApart() {
        AheadBurstAlarm alarm = new AheadBurstAlarm(TOLERANCE);
        for (int i = 0; i < AheadBurstAlarm.WINDOW; i++) {
            alarm.observe("t", 0, heartbeat(0, i, APPENDED + 3_600_000));
            alarm.observe("t", 1, heartbeat(1, 2 * i, APPENDED));
            alarm.observe("t", 1, heartbeat(1, 2 * i + 1, APPENDED));
        }
        assertThat(alarm.bursts()).as("partition 0's window, all ahead").isEqualTo(1);
    }

    private LedgerRecord heartbeat(int partition, long offset, long tsMillis) {
        return decoder.decode(
                "t", partition, offset, APPENDED, bytes("{\"ts_ms\":" + tsMillis + "}"));
    }
}
