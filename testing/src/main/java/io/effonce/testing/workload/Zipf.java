package io.effonce.testing.workload;

import java.util.Arrays;

/** Draws ranks 0..n-1 with Zipf-skewed weights: rank 0 the most frequent. */
public final class Zipf {

    private final double[] cdf;

    /** Rank k (from 0) has weight 1 / (k + 1)^exponent. */
    public Zipf(int n, double exponent) {
        cdf = new double[n];
        double sum = 0;
        for (int k = 1; k <= n; k++) {
            sum += 1 / Math.pow(k, exponent);
            cdf[k - 1] = sum;
        }
        for (int k = 0; k < n; k++) {
            cdf[k] /= sum;
        }
    }

    /** The rank for a uniform draw {@code u} in [0, 1). */
    public int rank(double u) {
        int i = Arrays.binarySearch(cdf, u);
        int at = i >= 0 ? i + 1 : -i - 1;
        return Math.min(at, cdf.length - 1);
    }
}
