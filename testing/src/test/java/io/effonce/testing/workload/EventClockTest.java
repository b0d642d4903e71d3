package io.effonce.testing.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EventClockTest {

    private static final Instant START = Instant.parse("2025-01-01T00:00:00Z");

    @Test
    void simulatedClockAdvancesAFixedStepPerPayment() {
        EventClock clock = EventClock.simulated(START, Duration.ofSeconds(10));
        assertThat(clock.now(0)).isEqualTo(START);
        // 50,000 payments at 10 s each cross almost six days.
        assertThat(clock.now(50_000)).isEqualTo(Instant.parse("2025-01-06T18:53:20Z"));
    }

    @Test
    void aSimulatedClockContinuedAfterSomePaymentsGoesOnWhereTheyLeftOff() {
        EventClock clock = EventClock.simulated(START, Duration.ofSeconds(10));
        EventClock rest = clock.continuedAfter(360);
        // A second workload counts its payments from zero: its first is an hour after START.
        assertThat(rest.now(0)).isEqualTo(START.plus(Duration.ofHours(1)));
        assertThat(rest.now(6)).isEqualTo(clock.now(366));
    }

    @Test
    void acceleratedClockRunsSpeedTimesFasterThanWallTime() {
        AtomicLong nanos = new AtomicLong(5_000);
        EventClock clock = EventClock.accelerated(START, 3_600, nanos::get);
        assertThat(clock.now(0)).isEqualTo(START);
        nanos.addAndGet(Duration.ofSeconds(24).toNanos());
        // One wall second is an event hour: 24 seconds cross a day.
        assertThat(clock.now(123)).isEqualTo(START.plus(Duration.ofDays(1)));
        // Whole microseconds, as PostgreSQL stores them: the day is the same on both sides.
        nanos.addAndGet(1);
        assertThat(clock.now(124)).isEqualTo(START.plus(Duration.ofDays(1)).plusNanos(3_000));
    }

    @Test
    void aClockThatCannotRunIsRefused() {
        assertThatThrownBy(() -> EventClock.accelerated(START, 0))
                .hasMessageContaining("speed must be > 0");
        assertThatThrownBy(() -> EventClock.simulated(START, Duration.ofSeconds(-1)))
                .hasMessageContaining("must not be negative");
    }
}
