package io.effonce.bench;

import java.lang.management.ManagementFactory;
import java.util.Optional;

/**
 * Whether the machine is visibly busy before a benchmark starts: figures taken then measure what
 * else runs as much as the systems compared, and a ratio's spread hides the gap it is about.
 */
final class BusyMachine {

    private BusyMachine() {}

    /** The load average over the last minute; negative where the platform has none. */
    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** Why a benchmark must not start at {@code loadAverage} on {@code cores}, or empty. */
    static Optional<String> refusal(double loadAverage, int cores) {
        if (loadAverage <= cores) {
            return Optional.empty();
        }
        return Optional.of(
                String.format(
                        "The machine is busy: load average %.2f over the last minute on %d cores."
                                + " Figures taken now would measure what else runs; stop it and"
                                + " run again, or pass --allow-busy to measure anyway (and say so"
                                + " beside the figures).",
                        loadAverage, cores));
    }
}
