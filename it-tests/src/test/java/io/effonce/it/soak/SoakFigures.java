package io.effonce.it.soak;

import io.effonce.it.testutils.ChaosReport;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per fault kind, how long the deployment took to run again and to be exact again: count and min /
 * median / p90 / max, measured from the first fault of each draw (an overlap's second fault is part
 * of its recovery).
 */
final class SoakFigures {

    private final Map<SoakFault, List<Long>> toRunning = new EnumMap<>(SoakFault.class);
    private final Map<SoakFault, List<Long>> toExact = new EnumMap<>(SoakFault.class);

    /** Records one drawn fault from the recoveries it returned, once they are exact. */
    void add(SoakFault fault, List<ChaosReport.Recovery> recoveries) {
        long start = recoveries.stream().mapToLong(ChaosReport.Recovery::faultAtMs).min().orElse(0);
        long running =
                recoveries.stream().mapToLong(ChaosReport.Recovery::runningAtMs).max().orElse(-1);
        long exact =
                recoveries.stream().mapToLong(ChaosReport.Recovery::exactAtMs).max().orElse(-1);
        toRunning.computeIfAbsent(fault, f -> new ArrayList<>()).add(running - start);
        toExact.computeIfAbsent(fault, f -> new ArrayList<>()).add(exact - start);
    }

    /** One line per kind: "n=…; to running min/median/p90/max ms; to exact …". */
    Map<String, String> table() {
        Map<String, String> rows = new LinkedHashMap<>();
        toExact.forEach(
                (fault, exact) ->
                        rows.put(
                                fault.name(),
                                "n=%d; to running %s ms; to exact %s ms"
                                        .formatted(
                                                exact.size(),
                                                spread(toRunning.get(fault)),
                                                spread(exact))));
        return rows;
    }

    private static String spread(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return "%d / %d / %d / %d"
                .formatted(
                        sorted.get(0),
                        percentile(sorted, 50),
                        percentile(sorted, 90),
                        sorted.get(sorted.size() - 1));
    }

    /** The nearest-rank percentile. */
    private static long percentile(List<Long> sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
