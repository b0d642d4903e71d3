package io.effonce.bench;

import java.util.Arrays;

/** A figure over rounds: its median, and the lowest and highest round beside it. */
record Spread(double median, double min, double max) {

    static Spread of(double... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("a spread needs at least one round");
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return new Spread(median, v[0], v[n - 1]);
    }

    /** {@code 1.22 (1.08–1.55)}: the median, then the spread of the rounds. */
    String ratio() {
        return String.format("%.2f (%.2f–%.2f)", median, min, max);
    }
}
