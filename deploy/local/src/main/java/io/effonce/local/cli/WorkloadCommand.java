package io.effonce.local.cli;

import io.effonce.local.LocalCli;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code workload}: writes payments into the ledger, with a progress line on long runs. */
@Command(
        name = "workload",
        mixinStandardHelpOptions = true,
        version = "effonce-local 0.1.0-SNAPSHOT",
        sortOptions = false,
        description = {
            "Writes payments into the payments table the way the payment API would: a PENDING row"
                    + " inserted if absent under UNIQUE (caller_id, client_key), then"
                    + " compare-and-set moves to SUCCEEDED or FAILED (some through UNKNOWN), some"
                    + " VOID rows, some retries answered from the existing row. Deterministic for a"
                    + " seed; updated_at comes from an event-time clock that can run faster than"
                    + " real time."
        })
public final class WorkloadCommand implements Callable<Integer> {

    @ParentCommand private LocalCli parent;
    @Spec private CommandSpec spec;

    @Option(
            names = "--count",
            paramLabel = "N",
            defaultValue = "10000",
            description = "Payments to start (default: ${DEFAULT-VALUE}).")
    private long count;

    @Option(
            names = "--rate",
            paramLabel = "PER_SECOND",
            defaultValue = "0",
            description =
                    "Payments started per second; 0 = as fast as possible (default: ${DEFAULT-VALUE}).")
    private double rate;

    @Option(
            names = "--merchants",
            paramLabel = "N",
            defaultValue = "100",
            description =
                    "Merchants m1..mN, Zipf-skewed so m1 is the biggest (default: ${DEFAULT-VALUE}).")
    private int merchants;

    @Option(
            names = "--zipf",
            paramLabel = "EXPONENT",
            defaultValue = "1.0",
            description =
                    "Skew of merchants and currencies; 0 = uniform (default: ${DEFAULT-VALUE}).")
    private double zipf;

    @Option(
            names = "--currencies",
            paramLabel = "CODES",
            split = ",",
            defaultValue = "EUR,USD,GBP",
            description = "ISO 4217 codes, the first the most used (default: ${DEFAULT-VALUE}).")
    private List<String> currencies;

    @Option(
            names = "--callers",
            paramLabel = "N",
            defaultValue = "10000",
            description =
                    "Distinct callers owning the idempotency keys (default: ${DEFAULT-VALUE}).")
    private int callers;

    @Option(
            names = "--scope",
            paramLabel = "NAME",
            defaultValue = "w",
            description =
                    "Prefix of every caller id; runs with different scopes never collide, the"
                            + " same scope and seed again is answered from the existing rows (default: ${DEFAULT-VALUE}).")
    private String scope;

    @Option(
            names = "--seed",
            paramLabel = "SEED",
            defaultValue = "1",
            description =
                    "Seed: the same seed and options give the same payments (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(
            names = "--clock-start",
            paramLabel = "INSTANT",
            description =
                    "Event time of the first payment, ISO-8601 (default: now, so a running job"
                            + " counts every change; an older start makes them late for a job that"
                            + " has seen newer heartbeats).")
    private Instant clockStart;

    @Option(
            names = "--clock-speed",
            paramLabel = "FACTOR",
            defaultValue = "1",
            description =
                    "Event seconds per wall second of the accelerated clock: 1 is real time; 3600"
                            + " crosses a day in 24 s, running ahead of real time, which a job"
                            + " takes for a wrong clock beyond its event-time.tolerance"
                            + " (default: ${DEFAULT-VALUE}).")
    private double clockSpeed;

    @Option(
            names = "--clock-step",
            paramLabel = "DURATION",
            description =
                    "Use the simulated clock instead: event time advances by this ISO-8601"
                            + " duration per payment (e.g. PT10S), independent of wall time, so updated_at"
                            + " is deterministic too.")
    private Duration clockStep;

    @Option(
            names = "--zone",
            paramLabel = "ZONE",
            defaultValue = "UTC",
            description =
                    "Zone whose dates the run's record of successes uses, as the oracle's --zone (default: ${DEFAULT-VALUE}).")
    private ZoneId zone;

    @Option(
            names = "--batch",
            paramLabel = "N",
            defaultValue = "500",
            description =
                    "New payments per transaction; each payment's later state changes go in"
                            + " later transactions (default: ${DEFAULT-VALUE}).")
    private int batch;

    @Option(
            names = "--progress-every",
            paramLabel = "SECONDS",
            defaultValue = "5",
            description =
                    "Seconds between progress lines on stderr; 0 = none (default: ${DEFAULT-VALUE}).")
    private double progressEvery;

    /** Older than this, a start is behind a running job's event time: its changes are late. */
    static final Duration LATE_FOR_A_RUNNING_JOB = Duration.ofMinutes(1);

    @Override
    public Integer call() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant start = clockStart == null ? now : clockStart;
        PrintWriter err = spec.commandLine().getErr();
        for (String warning : clockWarnings(start, now)) {
            err.println("warning: " + warning);
        }
        EventClock clock =
                clockStep != null
                        ? EventClock.simulated(start, clockStep)
                        : EventClock.accelerated(start, clockSpeed);
        WorkloadOptions options =
                WorkloadOptions.builder()
                        .count(count)
                        .rate(rate)
                        .merchants(merchants)
                        .zipfExponent(zipf)
                        .currencies(currencies)
                        .callers(callers)
                        .scope(scope)
                        .seed(seed)
                        .clock(clock)
                        .zone(zone)
                        .batchSize(batch)
                        .build();
        PostgresEndpoint db = parent.database();
        PrintWriter out = spec.commandLine().getOut();
        out.printf("Writing %,d payments to %s (%s)%n", count, db, clock);
        out.flush();
        long every = (long) (progressEvery * 1e9);
        long[] nextLine = {System.nanoTime() + every};
        WorkloadReport report =
                new LedgerWorkload(options)
                        .run(
                                db,
                                r -> {
                                    if (every > 0 && System.nanoTime() >= nextLine[0]) {
                                        nextLine[0] = System.nanoTime() + every;
                                        err.println(progress(r));
                                        err.flush();
                                    }
                                });
        out.println(report.summary());
        if (report.created() == 0 && report.answeredFromExisting() > 0) {
            // An oracle run now would pass without anything new to test.
            err.println(
                    "warning: no payment was new: an earlier run used --scope "
                            + scope
                            + " and --seed "
                            + seed
                            + " already. Run again with another --seed (or --scope) to write new"
                            + " payments.");
        }
        return 0;
    }

    /** What a running job will make of this clock, when it is not real time from now. */
    List<String> clockWarnings(Instant start, Instant now) {
        List<String> warnings = new ArrayList<>();
        if (start.isBefore(now.minus(LATE_FOR_A_RUNNING_JOB))) {
            warnings.add(
                    "--clock-start "
                            + start
                            + " is before now: a job that has seen the relay's heartbeats counts"
                            + " these changes as late (late_events), not in merchant_daily_totals;"
                            + " the recount counts them (feed/README.md). Leave --clock-start out to"
                            + " start at now.");
        }
        if (clockStep != null || clockSpeed > 1) {
            warnings.add(
                    "event time runs ahead of real time ("
                            + (clockStep != null
                                    ? "--clock-step " + clockStep
                                    : "--clock-speed " + clockSpeed)
                            + "): a job dead-letters changes more than its event-time.tolerance"
                            + " (5 min by default) ahead of the broker's clock. Fine without a job"
                            + " or with that tolerance raised, as the demo does.");
        }
        return warnings;
    }

    private String progress(WorkloadReport r) {
        return String.format(
                "progress: %,d of %,d payments (%.0f%%), %,.0f payments/s, event time %s",
                r.started(),
                count,
                count == 0 ? 100.0 : 100.0 * r.started() / count,
                r.paymentsPerSecond(),
                r.lastEventTime());
    }
}
