package io.effonce.bench.latency;

import java.util.List;

/** Percentiles of a list of delays in ms (nearest rank). */
record Percentiles(double[] sorted) {

    static Percentiles of(List<Double> delays) {
        return new Percentiles(delays.stream().mapToDouble(Double::doubleValue).sorted().toArray());
    }

    int size() {
        return sorted.length;
    }

    double pct(int p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
    }

    @Override
    public String toString() {
        return String.format(
                "%d samples; median %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms",
                size(), pct(50), pct(90), pct(99), pct(100));
    }
}
