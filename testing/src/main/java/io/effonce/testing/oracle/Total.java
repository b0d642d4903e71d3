package io.effonce.testing.oracle;

/** A daily total: the sum of the amounts in minor units and the number of payments. */
public record Total(long totalMinor, long payments) {

    public static final Total ZERO = new Total(0, 0);

    /** This total plus {@code other}; fails on overflow rather than wrapping. */
    public Total plus(Total other) {
        return new Total(
                Math.addExact(totalMinor, other.totalMinor),
                Math.addExact(payments, other.payments));
    }

    @Override
    public String toString() {
        return String.format("%,d in %,d payments", totalMinor, payments);
    }
}
