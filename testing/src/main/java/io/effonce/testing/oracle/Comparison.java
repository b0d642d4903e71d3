package io.effonce.testing.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The result of comparing expected daily totals (the ledger's) with actual ones (the sink's, plus
 * late events when asked): every key that is missing, extra or wrong, with both values.
 *
 * @param keys how many merchant-days the comparison looked at (the union of both sides)
 */
public record Comparison(int keys, List<Difference> differences) {

    private static final int SUMMARY_LINES = 20;

    public Comparison {
        differences = List.copyOf(differences);
    }

    /** What is wrong with one key. */
    public enum Kind {
        /** The ledger has the key, the actual side does not. */
        MISSING,
        /** The actual side has a key the ledger lacks. */
        EXTRA,
        /** Both have the key with different totals or counts. */
        WRONG
    }

    /** One key that differs; {@code expected} or {@code actual} is null when that side lacks it. */
    public record Difference(MerchantDay key, Kind kind, Total expected, Total actual) {
        @Override
        public String toString() {
            return kind.name().toLowerCase(java.util.Locale.ROOT)
                    + " "
                    + key
                    + ": expected "
                    + (expected == null ? "nothing" : expected)
                    + ", actual "
                    + (actual == null ? "nothing" : actual);
        }
    }

    /** Compares two maps of totals key by key, in key order. */
    public static Comparison of(Map<MerchantDay, Total> expected, Map<MerchantDay, Total> actual) {
        TreeSet<MerchantDay> all = new TreeSet<>(expected.keySet());
        all.addAll(actual.keySet());
        List<Difference> differences = new ArrayList<>();
        for (MerchantDay key : all) {
            Total e = expected.get(key);
            Total a = actual.get(key);
            if (a == null) {
                differences.add(new Difference(key, Kind.MISSING, e, null));
            } else if (e == null) {
                differences.add(new Difference(key, Kind.EXTRA, null, a));
            } else if (!e.equals(a)) {
                differences.add(new Difference(key, Kind.WRONG, e, a));
            }
        }
        return new Comparison(all.size(), differences);
    }

    /** Whether both sides hold the same keys with the same totals. */
    public boolean matches() {
        return differences.isEmpty();
    }

    /** The differences of one kind. */
    public List<Difference> of(Kind kind) {
        return differences.stream().filter(d -> d.kind() == kind).toList();
    }

    /**
     * One line, e.g. {@code "1,204 merchant-days, 0 differences"}, then up to 20 differences, one a
     * line.
     */
    public String summary() {
        StringBuilder s =
                new StringBuilder(
                        String.format(
                                "%,d merchant-days, %,d differences (%,d missing, %,d extra, %,d"
                                        + " wrong)",
                                keys,
                                differences.size(),
                                of(Kind.MISSING).size(),
                                of(Kind.EXTRA).size(),
                                of(Kind.WRONG).size()));
        if (matches()) {
            return String.format("%,d merchant-days, 0 differences", keys);
        }
        differences.stream()
                .limit(SUMMARY_LINES)
                .forEach(d -> s.append(System.lineSeparator()).append("  ").append(d));
        if (differences.size() > SUMMARY_LINES) {
            s.append(System.lineSeparator())
                    .append(
                            String.format(
                                    "  ... and %,d more", differences.size() - SUMMARY_LINES));
        }
        return s.toString();
    }

    @Override
    public String toString() {
        return summary();
    }
}
