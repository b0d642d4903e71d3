package io.effonce.job;

import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.job.decode.RejectReason;

/**
 * Adding a counted change to its day's total: exact, never a wrap-around. A sum that would overflow
 * a {@code long} is a dead letter instead.
 */
final class TotalAddition {

    private TotalAddition() {}

    /** {@code before} (none: a new day) plus the change; null if the sum would overflow. */
    static DailyTotal added(DailyTotal before, PaymentChange change) {
        if (before == null) {
            return new DailyTotal(change.amount(), 1);
        }
        try {
            return new DailyTotal(
                    Math.addExact(before.totalMinor(), change.amount()), before.payments() + 1);
        } catch (ArithmeticException overflow) {
            return null;
        }
    }

    /** The dead letter of a change whose amount would overflow its day's total. */
    static DeadLetter overflow(PaymentChange change, DailyTotal before) {
        return new DeadLetter(
                change.topic(),
                change.partition(),
                change.offset(),
                RejectReason.TOTAL_OVERFLOW.describe(
                        change.dayKey() + " at " + before.totalMinor()),
                change.eventId());
    }
}
