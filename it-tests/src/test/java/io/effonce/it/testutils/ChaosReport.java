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
 * What a chaos run did, for a person to read: faults and restores on a timeline, the sink's grand
 * total (plus late events) against the ledger's, sampled every 500 ms, and the run's figures.
 * {@link #close()} writes {@code <name>.txt} (a table) and {@code <name>.svg} (totals vs oracle
 * over time with kills, restores and flushes marked) under {@code target/chaos-reports}.
 */
public final class ChaosReport implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChaosReport.class);

    /** A marked moment. */
    public record Event(long atMillis, String kind, String label) {}

    private record Sample(long atMillis, long ledger, long sinkAndLate, long takeovers) {}

    private final String name;
    private final long start = System.nanoTime();
    private final List<Event> events = new ArrayList<>();
    private final List<Sample> samples = new ArrayList<>();
    private final List<Recovery> recoveries = new ArrayList<>();
    private final Map<String, Object> figures = new LinkedHashMap<>();
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
                samples.add(new Sample(now(), ledger, actual, takeovers));
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
        Recovery recovery = new Recovery(recoveries.size() + 1, kind, now());
        recoveries.add(recovery);
        return recovery;
    }

    /** The moments after one fault, in milliseconds of the run (-1 until reached). */
    public final class Recovery {
        private final int number;
        private final String kind;
        private final long faultAt;
        private long leaderAt = -1;
        private long runningAt = -1;
        private long checkpointAt = -1;
        private long exactAt = -1;

        private Recovery(int number, String kind, long faultAt) {
            this.number = number;
            this.kind = kind;
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
                        "%n%10s  %20s  %20s  %10s%n",
                        "at (ms)",
                        "ledger total",
                        "sink + late total",
                        "takeovers"));
        int step = Math.max(1, samples.size() / 40);
        for (int i = 0; i < samples.size(); i += step) {
            Sample p = samples.get(i);
            s.append(
                    String.format(
                            Locale.ROOT,
                            "%10d  %20d  %20d  %10d%n",
                            p.atMillis(),
                            p.ledger(),
                            p.sinkAndLate(),
                            p.takeovers()));
        }
        return s.toString();
    }

    private String svg() {
        int w = 1000;
        int h = 420;
        int left = 90;
        int right = 20;
        int top = 30;
        int bottom = 60;
        long tMax = Math.max(1, now());
        long yMax = 1;
        for (Sample p : samples) {
            yMax = Math.max(yMax, Math.max(p.ledger(), p.sinkAndLate()));
        }
        double sx = (double) (w - left - right) / tMax;
        double sy = (double) (h - top - bottom) / yMax;
        StringBuilder s = new StringBuilder();
        s.append(
                String.format(
                        Locale.ROOT,
                        "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d'"
                                + " font-family='sans-serif' font-size='11'>%n",
                        w,
                        h));
        s.append("<rect width='100%' height='100%' fill='white'/>\n");
        s.append(
                String.format(
                        Locale.ROOT,
                        "<text x='%d' y='18' font-size='14'>%s: totals vs oracle over time</text>%n",
                        left,
                        name));
        s.append(
                String.format(
                        Locale.ROOT,
                        "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>"
                                + "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>%n",
                        left,
                        h - bottom,
                        w - right,
                        h - bottom,
                        left,
                        top,
                        left,
                        h - bottom));
        s.append(
                String.format(
                        Locale.ROOT,
                        "<text x='%d' y='%d'>0</text><text x='%d' y='%d'>%d ms</text>"
                                + "<text x='4' y='%d'>%,d</text>%n",
                        left,
                        h - bottom + 14,
                        w - right - 60,
                        h - bottom + 14,
                        tMax,
                        top + 4,
                        yMax));
        for (Event e : events) {
            String color =
                    switch (e.kind()) {
                        case "kill" -> "red";
                        case "restore" -> "orange";
                        case "checkpoint" -> "#17becf";
                        case "exact" -> "darkgreen";
                        case "flush" -> "purple";
                        default -> "gray";
                    };
            double x = left + e.atMillis() * sx;
            s.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s'"
                                    + " stroke-dasharray='4,3'><title>%s: %s</title></line>%n",
                            x,
                            top,
                            x,
                            h - bottom,
                            color,
                            e.kind(),
                            escape(e.label())));
        }
        s.append(polyline(samples, true, left, h - bottom, sx, sy, "#1f77b4", 3));
        s.append(polyline(samples, false, left, h - bottom, sx, sy, "#2ca02c", 1.5));
        String[][] legend = {
            {"#1f77b4", "ledger (oracle)"},
            {"#2ca02c", "sink + late_events"},
            {"red", "kill"},
            {"orange", "running again"},
            {"#17becf", "checkpoint"},
            {"darkgreen", "exact again"},
            {"purple", "flush"},
            {"gray", "other fault"}
        };
        for (int i = 0; i < legend.length; i++) {
            int x = left + i * 110;
            s.append(
                    String.format(
                            Locale.ROOT,
                            "<rect x='%d' y='%d' width='12' height='12' fill='%s'/>"
                                    + "<text x='%d' y='%d'>%s</text>%n",
                            x,
                            h - 30,
                            legend[i][0],
                            x + 16,
                            h - 20,
                            legend[i][1]));
        }
        s.append("</svg>\n");
        return s.toString();
    }

    private static String polyline(
            List<Sample> samples,
            boolean ledger,
            int left,
            int base,
            double sx,
            double sy,
            String color,
            double width) {
        StringBuilder points = new StringBuilder();
        for (Sample p : samples) {
            long y = ledger ? p.ledger() : p.sinkAndLate();
            points.append(
                    String.format(
                            Locale.ROOT, "%.1f,%.1f ", left + p.atMillis() * sx, base - y * sy));
        }
        return String.format(
                Locale.ROOT,
                "<polyline fill='none' stroke='%s' stroke-width='%.1f' points='%s'/>%n",
                color,
                width,
                points.toString().trim());
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace("'", "&apos;");
    }
}
