package io.effonce.it.testutils;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.oracle.LedgerOracle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a chaos run did, for a person to read: faults and restores on a timeline, the live and the
 * committed grand totals (each plus late events) against the ledger's, sampled every 500 ms, and
 * the run's figures. {@link #close()} writes {@code <name>.txt} (a table) and {@code <name>.svg}
 * ({@link ChaosTimeline}: each fault's recovery as a bar, overlaps in lanes of their own, the
 * totals over time) under {@code target/chaos-reports}.
 */
public final class ChaosReport implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChaosReport.class);

    /** A marked moment. */
    public record Event(long atMillis, String kind, String label) {}

    private record Sample(
            long atMillis, long ledger, long sinkAndLate, long committedAndLate, long takeovers) {}

    private final String name;
    private final long start = System.nanoTime();
    private final List<Event> events = new ArrayList<>();
    private final List<Sample> samples = new ArrayList<>();
    private final List<Recovery> recoveries = new ArrayList<>();
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private String faultName;
    private final ScheduledExecutorService sampler;
    private final LedgerOracle ledgerOracle;
    private final LedgerOracle sinkOracle;

    /** Starts sampling {@code db}, the ledger's and the sink's, for the run {@code name}. */
    public ChaosReport(String name, PostgresEndpoint db) {
        this(name, db, db);
    }

    /**
     * Starts sampling the {@code ledger} and the {@code sink} databases for the run {@code name}.
     */
    public ChaosReport(String name, PostgresEndpoint ledger, PostgresEndpoint sink) {
        this.name = name;
        this.ledgerOracle = LedgerOracle.keepingSession(ledger);
        this.sinkOracle = ledger.equals(sink) ? ledgerOracle : LedgerOracle.keepingSession(sink);
        SinkTables tables = new SinkTables(sink);
        this.sampler =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "chaos-report-sampler");
                            t.setDaemon(true);
                            return t;
                        });
        sampler.scheduleWithFixedDelay(() -> sample(tables), 0, 500, TimeUnit.MILLISECONDS);
    }

    private void sample(SinkTables tables) {
        try {
            long ledger = TotalsInvariant.grandTotal(ledgerOracle.ledgerTotals());
            long actual =
                    TotalsInvariant.grandTotal(
                            LedgerOracle.sum(sinkOracle.sinkTotals(), sinkOracle.lateTotals()));
            long committed =
                    TotalsInvariant.grandTotal(
                            LedgerOracle.sum(
                                    sinkOracle.committedTotals(), sinkOracle.lateTotals()));
            long takeovers = tables.ownershipTakeovers();
            synchronized (this) {
                if (!samples.isEmpty() && takeovers > samples.get(samples.size() - 1).takeovers()) {
                    events.add(
                            new Event(
                                    now(),
                                    "flush",
                                    (takeovers - samples.get(samples.size() - 1).takeovers())
                                            + " subtask flush(es)"));
                }
                samples.add(new Sample(now(), ledger, actual, committed, takeovers));
            }
        } catch (RuntimeException e) {
            // the database may be restarting; the next sample will tell
        }
    }

    /** Marks a moment: {@code kind} is kill, restore, rescale, restart, ... */
    public synchronized void mark(String kind, String label) {
        events.add(new Event(now(), kind, label));
        LOG.info("[{}] {} at {} ms: {}", name, kind, now(), label);
    }

    /**
     * Marks a fault ({@code kind} kill, rescale, restart, ...) and returns its recovery, on which
     * the test marks the moments after it: job running again, first checkpoint after the restore,
     * totals exact again. The report tabulates each, with minimum, median and maximum.
     */
    public synchronized Recovery fault(String kind, String label) {
        mark(kind, label);
        Recovery recovery =
                new Recovery(
                        recoveries.size() + 1,
                        kind,
                        faultName == null ? kind : faultName,
                        label,
                        now());
        recoveries.add(recovery);
        return recovery;
    }

    /**
     * Names the faults marked from now on in the picture (a soak's fault kind, "broker kill" where
     * the kind alone says "kill"); {@code null}: their kind.
     */
    public synchronized void nameFaults(String name) {
        faultName = name;
    }

    /** The moments after one fault, in milliseconds of the run (-1 until reached). */
    public final class Recovery {
        private final int number;
        private final String kind;
        private final String name;
        private final String label;
        private final long faultAt;
        private long leaderAt = -1;
        private long runningAt = -1;
        private long checkpointAt = -1;
        private long exactAt = -1;

        private Recovery(int number, String kind, String name, String label, long faultAt) {
            this.number = number;
            this.kind = kind;
            this.name = name;
            this.label = label;
            this.faultAt = faultAt;
        }

        /** A JobManager other than the killed one leads the cluster. */
        public void newLeader(String label) {
            synchronized (ChaosReport.this) {
                leaderAt = now();
                mark("leader", label + " (" + (leaderAt - faultAt) + " ms after the fault)");
            }
        }

        /** The job runs again (every task RUNNING, restored from checkpoint or savepoint). */
        public void running(String label) {
            synchronized (ChaosReport.this) {
                runningAt = now();
                mark("restore", label + " (" + (runningAt - faultAt) + " ms after the fault)");
            }
        }

        /** The first checkpoint after the restore completed. */
        public void checkpointed(long checkpointId) {
            synchronized (ChaosReport.this) {
                checkpointAt = now();
                mark(
                        "checkpoint",
                        "checkpoint %d completed, the first after the restore (%d ms after the fault)"
                                .formatted(checkpointId, checkpointAt - faultAt));
            }
        }

        /** The totals equal the ledger again. */
        public void exact() {
            synchronized (ChaosReport.this) {
                exactAt = now();
                mark("exact", "totals equal to the ledger (" + (exactAt - faultAt) + " ms after)");
            }
        }

        private long since(long at) {
            return at < 0 ? -1 : at - faultAt;
        }

        /** When the fault was injected, in milliseconds of the run. */
        public long faultAtMs() {
            synchronized (ChaosReport.this) {
                return faultAt;
            }
        }

        /** When the job ran again, in milliseconds of the run; -1 until then. */
        public long runningAtMs() {
            synchronized (ChaosReport.this) {
                return runningAt;
            }
        }

        /** When the totals were exact again, in milliseconds of the run; -1 until then. */
        public long exactAtMs() {
            synchronized (ChaosReport.this) {
                return exactAt;
            }
        }
    }

    /** A figure for the table (restores, flushes, duplicates, ...). */
    public synchronized void figure(String key, Object value) {
        figures.put(key, value);
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    private long now() {
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Override
    public synchronized void close() {
        if (sampler.isShutdown()) {
            return;
        }
        sampler.shutdownNow();
        try {
            sampler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ledgerOracle.close();
        sinkOracle.close();
        Path dir = Path.of(System.getProperty("effonce.report.dir", "target/chaos-reports"));
        try {
            Files.createDirectories(dir);
            synchronized (this) {
                figure("run time ms", now());
                recoveryFigures();
                Files.writeString(dir.resolve(name + ".txt"), table());
                Files.writeString(dir.resolve(name + ".svg"), svg());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        LOG.info("[{}] report in {}: {}", name, dir.toAbsolutePath(), figures);
    }

    private void recoveryFigures() {
        if (recoveries.isEmpty()) {
            return;
        }
        if (anyLeaderChange()) {
            figure("fault -> new leader ms (min/median/max)", spread(r -> r.since(r.leaderAt)));
        }
        figure("fault -> running ms (min/median/max)", spread(r -> r.since(r.runningAt)));
        figure(
                "fault -> first checkpoint ms (min/median/max)",
                spread(r -> r.since(r.checkpointAt)));
        figure("fault -> exact ms (min/median/max)", spread(r -> r.since(r.exactAt)));
    }

    private boolean anyLeaderChange() {
        return recoveries.stream().anyMatch(r -> r.leaderAt >= 0);
    }

    private String spread(ToLongFunction<Recovery> millis) {
        long[] values =
                recoveries.stream().mapToLong(millis).filter(v -> v >= 0).sorted().toArray();
        if (values.length == 0) {
            return "not reached";
        }
        return String.format(
                Locale.ROOT,
                "%d / %d / %d (of %d faults)",
                values[0],
                values[values.length / 2],
                values[values.length - 1],
                values.length);
    }

    private String table() {
        StringBuilder s = new StringBuilder();
        s.append("Chaos run: ").append(name).append("\n\n");
        figures.forEach((k, v) -> s.append(String.format(Locale.ROOT, "%-50s %s%n", k, v)));
        if (!recoveries.isEmpty()) {
            boolean leaders = anyLeaderChange();
            s.append(
                    String.format(
                            Locale.ROOT,
                            "%nRecovery, ms after each fault (-1: not reached)%n%3s  %-8s  %10s  "
                                    + (leaders ? "%10s  " : "%s")
                                    + "%10s  %10s  %10s%n",
                            "#",
                            "fault",
                            "at (ms)",
                            leaders ? "leader" : "",
                            "running",
                            "checkpoint",
                            "exact"));
            for (Recovery r : recoveries) {
                s.append(
                        String.format(
                                Locale.ROOT,
                                "%3d  %-8s  %10d  "
                                        + (leaders ? "%10d  " : "%s")
                                        + "%10d  %10d  %10d%n",
                                r.number,
                                r.kind,
                                r.faultAt,
                                leaders ? r.since(r.leaderAt) : "",
                                r.since(r.runningAt),
                                r.since(r.checkpointAt),
                                r.since(r.exactAt)));
            }
        }
        s.append(String.format(Locale.ROOT, "%n%10s  %-10s  %s%n", "at (ms)", "event", "what"));
        for (Event e : events) {
            s.append(
                    String.format(
                            Locale.ROOT, "%10d  %-10s  %s%n", e.atMillis(), e.kind(), e.label()));
        }
        s.append(
                String.format(
                        Locale.ROOT,
                        "%n%10s  %20s  %20s  %20s  %10s%n",
                        "at (ms)",
                        "ledger total",
                        "sink + late total",
                        "committed + late",
                        "takeovers"));
        int step = Math.max(1, samples.size() / 40);
        for (int i = 0; i < samples.size(); i += step) {
            Sample p = samples.get(i);
            s.append(
                    String.format(
                            Locale.ROOT,
                            "%10d  %20d  %20d  %20d  %10d%n",
                            p.atMillis(),
                            p.ledger(),
                            p.sinkAndLate(),
                            p.committedAndLate(),
                            p.takeovers()));
        }
        return s.toString();
    }

    private String svg() {
        return ChaosTimeline.svg(
                name,
                now(),
                samples.stream()
                        .map(
                                p ->
                                        new ChaosTimeline.Point(
                                                p.atMillis(),
                                                p.ledger(),
                                                p.sinkAndLate(),
                                                p.committedAndLate()))
                        .toList(),
                recoveries.stream()
                        .map(
                                r ->
                                        new ChaosTimeline.Bar(
                                                r.number,
                                                r.name,
                                                r.label,
                                                r.faultAt,
                                                r.runningAt,
                                                r.exactAt))
                        .toList(),
                events.stream()
                        .map(e -> new ChaosTimeline.Tick(e.atMillis(), e.kind(), e.label()))
                        .toList());
    }
}
