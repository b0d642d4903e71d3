package io.effonce.bench.latency;

import io.effonce.cdc.DelayHistogram;
import io.effonce.cdc.RelayMetrics;
import io.effonce.demo.DemoStack;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.PaymentPlan;
import io.effonce.testing.workload.PaymentPlans;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Freshness: the delay from a ledger commit to the row changing in {@code merchant_daily_totals},
 * through relay, Kafka, the job on a local multi-process cluster and the sink, with the ledger
 * changing at a steady rate in real time. Several runs on one stack, one after the other, each at
 * its own rate. Not a test; run it by hand (deploy/demo/README.md).
 *
 * <p>It measures without touching the path: per totals row, the sink's own {@code written_at} of
 * the row's final version minus the commit time of the last success it counts (one sample per
 * merchant-day, for any row whose last success came after the warm-up), split at the time Kafka
 * stamped on that change's record into the relay's and the job's share. The commit time is
 * PostgreSQL's ({@code source.ts_ms} of the change); the time from the change's {@code updated_at},
 * which the workload sets at the start of its transaction, is shown beside it. With {@code
 * --version-log} a trigger also records every version of every row, so the delay of every success
 * shows (at the cost of one more insert per row write).
 */
public final class LatencyBenchmark {

    public static void main(String[] args) throws Exception {
        LatencyOptions options = LatencyOptions.parse(args);
        try (DemoStack stack =
                DemoStack.start(
                        Path.of("target/latency-bench"),
                        Path.of("job/target/effonce-job-0.1.0-SNAPSHOT-job.jar"),
                        2,
                        flinkConfig(options),
                        options.jobArgs(),
                        options.relayArgs())) {
            if (options.versionLog()) {
                LatencyProbes.installVersionLog(stack.ledger());
            }
            System.out.printf(
                    "setup: job parallelism 2 on a local cluster of 1 JobManager and 2"
                            + " TaskManagers (OS processes), deploy/flink-conf and over it %s; PostgreSQL,"
                            + " Kafka, the relay and the workload on the same %d cores; runs of"
                            + " %d s, one after the other on the same stack, warm-up %d s"
                            + " each, after a run 0 of %d s that warms the stack's JVMs;"
                            + " %d merchants; version log %s; extra job arguments %s, relay"
                            + " arguments %s%n",
                    flinkConfig(options),
                    Runtime.getRuntime().availableProcessors(),
                    options.seconds(),
                    options.warmUpSeconds(),
                    options.stackWarmUpSeconds(),
                    options.merchants(),
                    options.versionLog() ? "on" : "off",
                    options.jobArgs(),
                    options.relayArgs());
            if (options.stackWarmUpSeconds() > 0) {
                // Run 0: every JVM of the stack compiles its hot paths (the machine is saturated
                // meanwhile, and the relay falls seconds behind); printed, not in the table.
                run(
                        stack,
                        options,
                        0,
                        options.changesPerSecond().get(0),
                        options.stackWarmUpSeconds());
            }
            List<String> summary = new ArrayList<>();
            for (int run = 1; run <= options.changesPerSecond().size(); run++) {
                summary.add(
                        run(
                                stack,
                                options,
                                run,
                                options.changesPerSecond().get(run - 1),
                                options.seconds()));
            }
            System.out.println();
            System.out.println(
                    "| run | changes/s | commit → row p50 / p90 / p99 / max | relay share p50 /"
                            + " p99 | job share p50 / p99 | commit → committed row p50 / p90 /"
                            + " p99 / max | rows |");
            System.out.println("|---|---|---|---|---|---|---|");
            summary.forEach(System.out::println);
        }
    }

    private static String run(
            DemoStack stack, LatencyOptions options, int run, double changesPerSecond, int seconds)
            throws Exception {
        WorkloadOptions.Builder workload =
                WorkloadOptions.builder()
                        .scope("latency-" + run)
                        .seed(10 + run)
                        .merchants(options.merchants())
                        .batchSize(50);
        double paymentsPerSecond = changesPerSecond / changesPerPayment(workload.build());
        RelayMetrics relay = stack.relay(0).metrics();
        DelayHistogram.Snapshot toRelay = relay.commitToRelay().snapshot();
        DelayHistogram.Snapshot toAck = relay.relayToAck().snapshot();
        CpuShares cpu = CpuShares.now();
        Instant start = Instant.now();
        WorkloadReport report =
                new LedgerWorkload(
                                workload.count((long) (paymentsPerSecond * seconds))
                                        .rate(paymentsPerSecond)
                                        .clock(EventClock.accelerated(start, 1.0))
                                        .build())
                        .run(stack.ledger());
        String machine = CpuShares.now().since(cpu);
        LatencyProbes.awaitAllCounted(stack.ledger(), run, "merchant_daily_totals");
        LatencyProbes.awaitAllCounted(stack.ledger(), run, "merchant_daily_totals_committed");
        Instant warm = start.plusSeconds(options.warmUpSeconds());

        List<Double> total = new ArrayList<>();
        List<Double> fromEventTime = new ArrayList<>();
        List<Double> relayShare = new ArrayList<>();
        List<Double> jobShare = new ArrayList<>();
        CommittedBreakdown committedParts =
                new CommittedBreakdown(
                        id -> stack.cluster().rest().checkpointTiming(stack.jobId(), id));
        RelayDelays kafka =
                RelayDelays.of(
                        stack.kafka().bootstrapServers(),
                        DemoStack.TOPIC_PREFIX + ".public.payments",
                        start.minusSeconds(5));
        for (LatencyProbes.LastSuccess row : LatencyProbes.lastSuccesses(stack.ledger(), warm)) {
            fromEventTime.add((double) (row.writtenAt() - row.updatedAt()));
            long recordTime = kafka.recordTime(row.paymentId());
            long committed = kafka.commitTime(row.paymentId());
            if (recordTime >= 0) {
                total.add((double) (row.writtenAt() - committed));
                committedParts.add(
                        committed, row.writtenAt(), row.committedAt(), row.checkpointId());
                relayShare.add((double) (recordTime - committed));
                jobShare.add((double) (row.writtenAt() - recordTime));
            }
        }
        double rate = (report.created() + report.stateChanges()) / report.elapsedSeconds();
        System.out.printf(
                "%nrun %d%s: %.0f changes/s (%.0f payments/s) for %.0f s%n",
                run,
                run == 0 ? " (the stack's warm-up, not in the table)" : "",
                rate,
                report.paymentsPerSecond(),
                report.elapsedSeconds());
        Percentiles rows = Percentiles.of(total);
        System.out.println(
                "  commit → totals row (sink's written_at), last success of each row after"
                        + " warm-up: "
                        + rows);
        committedParts.lines().forEach(System.out::println);
        System.out.println(
                "    relay's share (commit → Kafka record time): " + Percentiles.of(relayShare));
        System.out.println(
                "    job's share (Kafka record time → written_at): " + Percentiles.of(jobShare));
        System.out.println(
                "  updated_at (start of the workload's transaction) → totals row, same rows: "
                        + Percentiles.of(fromEventTime));
        System.out.println(
                "  commit → Kafka record, every success after warm-up: "
                        + Percentiles.of(kafka.delays(warm)));
        System.out.println(
                "  relay stages, whole run: commit → relay "
                        + relay.commitToRelay().snapshot().since(toRelay)
                        + "; relay → Kafka ack "
                        + relay.relayToAck().snapshot().since(toAck));
        if (options.versionLog()) {
            System.out.println(
                    "  commit → first row version counting it, every success after warm-up: "
                            + Percentiles.of(LatencyProbes.versionDelays(stack.ledger(), warm)));
        }
        System.out.println("  " + machine);
        System.out.println(
                "  checkpoint storage at the run's end (the retained checkpoints' files): "
                        + CheckpointStorage.of(stack.cluster().checkpointDir()));
        Percentiles relayStats = Percentiles.of(relayShare);
        Percentiles jobStats = Percentiles.of(jobShare);
        Percentiles committedStats = committedParts.whole();
        return String.format(
                "| %d | %.0f | %.0f / %.0f / %.0f / %.0f ms | %.0f / %.0f ms | %.0f / %.0f ms"
                        + " | %.0f / %.0f / %.0f / %.0f ms | %d |",
                run,
                rate,
                rows.pct(50),
                rows.pct(90),
                rows.pct(99),
                rows.pct(100),
                relayStats.pct(50),
                relayStats.pct(99),
                jobStats.pct(50),
                jobStats.pct(99),
                committedStats.pct(50),
                committedStats.pct(90),
                committedStats.pct(99),
                committedStats.pct(100),
                rows.size());
    }

    /**
     * The cluster's settings: {@code --flink}'s over the shipped ones, and a statistics history
     * long enough for every checkpoint of a run (Flink keeps 10 by default).
     */
    private static Map<String, String> flinkConfig(LatencyOptions options) {
        Map<String, String> config = new LinkedHashMap<>(options.flinkConfig());
        config.putIfAbsent("web.checkpoints.history", "10000");
        return config;
    }

    /** Changes the workload makes per payment: the creation and each state change of its plan. */
    private static double changesPerPayment(WorkloadOptions options) {
        PaymentPlans plans = new PaymentPlans(options);
        long changes = 0;
        int sample = 10_000;
        for (int i = 0; i < sample; i++) {
            changes +=
                    1
                            + plans.plan(i).steps().stream()
                                    .filter(s -> s instanceof PaymentPlan.Move)
                                    .count();
        }
        return (double) changes / sample;
    }
}
