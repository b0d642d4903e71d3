package io.effonce.testing.workload;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.LongSupplier;

/**
 * The workload's event-time clock: the source of every {@code updated_at}. Either accelerated (wall
 * time since the run began, times a speed, so a demo crosses a day in minutes) or simulated (a
 * fixed step per payment started, so a run is fully deterministic and crosses days in seconds).
 * Never goes backwards.
 */
public final class EventClock {

    private final Instant start;
    private final double speed;
    private final Duration stepPerPayment;
    private final LongSupplier nanoTime;
    private long startNanos;
    private boolean started;

    private EventClock(
            Instant start, double speed, Duration stepPerPayment, LongSupplier nanoTime) {
        this.start = start;
        this.speed = speed;
        this.stepPerPayment = stepPerPayment;
        this.nanoTime = nanoTime;
    }

    /** Event time runs {@code speed} times as fast as wall time, from {@code start}. */
    public static EventClock accelerated(Instant start, double speed) {
        return accelerated(start, speed, System::nanoTime);
    }

    static EventClock accelerated(Instant start, double speed, LongSupplier nanoTime) {
        if (!(speed > 0)) {
            throw new IllegalArgumentException("clock speed must be > 0, was " + speed);
        }
        return new EventClock(start, speed, null, nanoTime);
    }

    /**
     * Event time advances by {@code stepPerPayment} for every payment started, from {@code start}.
     */
    public static EventClock simulated(Instant start, Duration stepPerPayment) {
        if (stepPerPayment.isNegative()) {
            throw new IllegalArgumentException(
                    "clock step must not be negative, was " + stepPerPayment);
        }
        return new EventClock(start, 0, stepPerPayment, System::nanoTime);
    }

    /**
     * The event time now, when {@code paymentsStarted} payments have been started, in whole
     * microseconds: PostgreSQL's precision, so the day of an instant is the same in Java and SQL.
     */
    public synchronized Instant now(long paymentsStarted) {
        return raw(paymentsStarted).truncatedTo(ChronoUnit.MICROS);
    }

    private Instant raw(long paymentsStarted) {
        if (stepPerPayment != null) {
            return start.plus(stepPerPayment.multipliedBy(paymentsStarted));
        }
        long nanos = nanoTime.getAsLong();
        if (!started) {
            startNanos = nanos;
            started = true;
        }
        return start.plusNanos((long) ((nanos - startNanos) * speed));
    }

    /**
     * This clock as a workload that starts counting payments from zero sees it after {@code
     * paymentsStarted} of another: a simulated clock goes on from where that one left off, an
     * accelerated clock is already wall time.
     */
    public EventClock continuedAfter(long paymentsStarted) {
        return stepPerPayment != null ? simulated(now(paymentsStarted), stepPerPayment) : this;
    }

    public Instant start() {
        return start;
    }

    @Override
    public String toString() {
        return stepPerPayment != null
                ? "simulated clock from " + start + ", " + stepPerPayment + " per payment"
                : "accelerated clock from " + start + ", x" + speed;
    }
}
