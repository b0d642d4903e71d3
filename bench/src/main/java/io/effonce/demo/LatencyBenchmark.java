package io.effonce.demo;

import io.effonce.cdc.DelayHistogram;
import io.effonce.cdc.RelayMetrics;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.PaymentPlan;
import io.effonce.testing.workload.PaymentPlans;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    private record Options(
            List<Double> changesPerSecond,
            int seconds,
            int warmUpSeconds,
            int stackWarmUpSeconds,
            int merchants,
            boolean versionLog,
            List<String> jobArgs,
            List<String> relayArgs) {

        static Options parse(String[] args) {
            List<Double> rates = List.of(2000.0, 2000.0, 2000.0, 500.0, 4000.0);
            int seconds = 60;
            int warmUp = 10;
            int stackWarmUp = 40;
            int merchants = 1000;
            boolean versionLog = false;
            List<String> jobArgs = new ArrayList<>();
            List<String> relayArgs = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--job" -> jobArgs.addAll(List.of(args[++i].split(" ")));
                    case "--relay" -> relayArgs.addAll(List.of(args[++i].split(" ")));
                    case "--merchants" -> merchants = Integer.parseInt(args[++i]);
                    case "--rates" ->
                            rates =
                                    Arrays.stream(args[++i].split(","))
                                            .map(Double::parseDouble)
                                            .toList();
                    case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                    case "--warm-up" -> warmUp = Integer.parseInt(args[++i]);
                    case "--stack-warm-up" -> stackWarmUp = Integer.parseInt(args[++i]);
                    case "--version-log" -> versionLog = true;
                    default ->
                            throw new IllegalArgumentException(
                                    "Unknown argument "
                                            + args[i]
                                            + "; use --rates 2000,2000,2000,500,4000 (changes/s,"
                                            + " one run each) --seconds 60 --warm-up 10"
                                            + " --stack-warm-up 40"
                                            + " --merchants 1000 [--version-log]"
                                            + " [--job '--key value ...'] [--relay '--opt v ...']");
                }
            }
            return new Options(
                    rates, seconds, warmUp, stackWarmUp, merchants, versionLog, jobArgs, relayArgs);
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        try (DemoStack stack =
                DemoStack.start(
                        Path.of("target/latency-bench"),
                        Path.of("job/target/effonce-job-0.1.0-SNAPSHOT-job.jar"),
                        2,
                        false,
                        options.jobArgs,
                        options.relayArgs)) {
            if (options.versionLog) {
                installVersionLog(stack.ledger);
            }
            System.out.printf(
                    "setup: job parallelism 2 on a local cluster of 1 JobManager and 2"
                            + " TaskManagers (OS processes), checkpoints every 2 s, PostgreSQL,"
                            + " Kafka, the relay and the workload on the same %d cores; runs of"
                            + " %d s, one after the other on the same stack, warm-up %d s"
                            + " each, after a run 0 of %d s that warms the stack's JVMs;"
                            + " %d merchants; version log %s; extra job arguments %s, relay"
                            + " arguments %s%n",
                    Runtime.getRuntime().availableProcessors(),
                    options.seconds,
                    options.warmUpSeconds,
                    options.stackWarmUpSeconds,
                    options.merchants,
                    options.versionLog ? "on" : "off",
                    options.jobArgs,
                    options.relayArgs);
            if (options.stackWarmUpSeconds > 0) {
                // Run 0: every JVM of the stack compiles its hot paths (the machine is saturated
                // meanwhile, and the relay falls seconds behind); printed, not in the table.
                run(stack, options, 0, options.changesPerSecond.get(0), options.stackWarmUpSeconds);
            }
            List<String> summary = new ArrayList<>();
            for (int run = 1; run <= options.changesPerSecond.size(); run++) {
                summary.add(
                        run(
                                stack,
                                options,
                                run,
                                options.changesPerSecond.get(run - 1),
                                options.seconds));
            }
            System.out.println();
            System.out.println(
                    "| run | changes/s | commit → row p50 / p90 / p99 / max | relay share p50 /"
                            + " p99 | job share p50 / p99 | rows |");
            System.out.println("|---|---|---|---|---|---|");
            summary.forEach(System.out::println);
        }
    }

    private static String run(
            DemoStack stack, Options options, int run, double changesPerSecond, int seconds)
            throws Exception {
        WorkloadOptions.Builder workload =
                WorkloadOptions.builder()
                        .scope("latency-" + run)
                        .seed(10 + run)
                        .merchants(options.merchants)
                        .batchSize(50);
        double paymentsPerSecond = changesPerSecond / changesPerPayment(workload.build());
        RelayMetrics relay = stack.relay.metrics();
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
                        .run(stack.ledger);
        String machine = CpuShares.now().since(cpu);
        awaitAllCounted(stack.ledger, run, "merchant_daily_totals");
        awaitAllCounted(stack.ledger, run, "merchant_daily_totals_committed");
        Instant warm = start.plusSeconds(options.warmUpSeconds);

        List<Double> total = new ArrayList<>();
        List<Double> fromEventTime = new ArrayList<>();
        List<Double> relayShare = new ArrayList<>();
        List<Double> jobShare = new ArrayList<>();
        List<Double> toCommitted = new ArrayList<>();
        RelayDelays kafka =
                RelayDelays.of(
                        stack.kafka.bootstrapServers(),
                        DemoStack.TOPIC_PREFIX + ".public.payments",
                        start.minusSeconds(5));
        for (LastSuccess row : lastSuccesses(stack.ledger, warm)) {
            fromEventTime.add((double) (row.writtenAt - row.updatedAt));
            long recordTime = kafka.recordTime(row.paymentId);
            long committed = kafka.commitTime(row.paymentId);
            if (recordTime >= 0) {
                total.add((double) (row.writtenAt - committed));
                toCommitted.add((double) (row.committedAt - committed));
                relayShare.add((double) (recordTime - committed));
                jobShare.add((double) (row.writtenAt - recordTime));
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
        Stats rows = Stats.of(total);
        System.out.println(
                "  commit → totals row (sink's written_at), last success of each row after"
                        + " warm-up: "
                        + rows);
        System.out.println(
                "  commit → committed row (merchant_daily_totals_committed.committed_at), same"
                        + " rows: "
                        + Stats.of(toCommitted));
        System.out.println(
                "    relay's share (commit → Kafka record time): " + Stats.of(relayShare));
        System.out.println(
                "    job's share (Kafka record time → written_at): " + Stats.of(jobShare));
        System.out.println(
                "  updated_at (start of the workload's transaction) → totals row, same rows: "
                        + Stats.of(fromEventTime));
        System.out.println(
                "  commit → Kafka record, every success after warm-up: "
                        + Stats.of(kafka.delays(warm)));
        System.out.println(
                "  relay stages, whole run: commit → relay "
                        + relay.commitToRelay().snapshot().since(toRelay)
                        + "; relay → Kafka ack "
                        + relay.relayToAck().snapshot().since(toAck));
        if (options.versionLog) {
            System.out.println(
                    "  commit → first row version counting it, every success after warm-up: "
                            + Stats.of(versionDelays(stack.ledger, warm)));
        }
        System.out.println("  " + machine);
        Stats relayStats = Stats.of(relayShare);
        Stats jobStats = Stats.of(jobShare);
        return String.format(
                "| %d | %.0f | %.0f / %.0f / %.0f / %.0f ms | %.0f / %.0f ms | %.0f / %.0f ms | %d |",
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
                rows.size());
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

    /** Waits until {@code table} counts every success of the ledger; 120 s at most. */
    private static void awaitAllCounted(PostgresEndpoint db, int run, String table)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        long counted = -1;
        long successes = -1;
        while (System.nanoTime() < deadline) {
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT (SELECT count(*) FROM payments WHERE state ="
                                            + " 'SUCCEEDED'), (SELECT coalesce(sum(payments), 0)"
                                            + " FROM "
                                            + table
                                            + ")")) {
                rs.next();
                successes = rs.getLong(1);
                counted = rs.getLong(2);
            }
            if (counted == successes) {
                return;
            }
            Thread.sleep(200); // pacing of a poll after the measured interval has ended
        }
        throw new IllegalStateException(
                "Run "
                        + run
                        + ": after 120 s "
                        + table
                        + " counts "
                        + counted
                        + " of the ledger's "
                        + successes
                        + " successes; the job is behind or stuck (see target/latency-bench)");
    }

    private record LastSuccess(
            String paymentId, long updatedAt, long writtenAt, long committedAt) {}

    /** Per totals row: its last success, if committed from {@code from}, and the row's time. */
    private static List<LastSuccess> lastSuccesses(PostgresEndpoint db, Instant from)
            throws Exception {
        String sql =
                "SELECT l.payment_id, extract(epoch FROM l.updated_at) * 1000,"
                        + " extract(epoch FROM t.written_at) * 1000,"
                        + " extract(epoch FROM k.committed_at) * 1000"
                        + " FROM (SELECT DISTINCT ON (merchant_id, (updated_at AT TIME ZONE"
                        + " 'UTC')::date, currency) payment_id, merchant_id, currency, updated_at,"
                        + " (updated_at AT TIME ZONE 'UTC')::date AS day FROM payments"
                        + " WHERE state = 'SUCCEEDED' ORDER BY merchant_id, (updated_at AT TIME"
                        + " ZONE 'UTC')::date, currency, updated_at DESC) l"
                        + " JOIN merchant_daily_totals t ON t.merchant_id = l.merchant_id"
                        + " AND t.day = l.day AND t.currency = l.currency"
                        + " JOIN merchant_daily_totals_committed k ON k.merchant_id = l.merchant_id"
                        + " AND k.day = l.day AND k.currency = l.currency"
                        + " WHERE l.updated_at >= ?";
        List<LastSuccess> rows = new ArrayList<>();
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement(sql)) {
            s.setObject(1, OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(
                            new LastSuccess(
                                    rs.getString(1),
                                    Math.round(rs.getDouble(2)),
                                    Math.round(rs.getDouble(3)),
                                    Math.round(rs.getDouble(4))));
                }
            }
        }
        return rows;
    }

    private static void installVersionLog(PostgresEndpoint db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE totals_versions (merchant_id text, day date, currency text,"
                            + " payments bigint, seen_at timestamptz DEFAULT clock_timestamp())");
            s.execute("CREATE INDEX ON totals_versions (merchant_id, day, currency, payments)");
            s.execute(
                    "CREATE FUNCTION log_totals_version() RETURNS trigger AS $$ BEGIN"
                            + " INSERT INTO totals_versions (merchant_id, day, currency, payments)"
                            + " VALUES (NEW.merchant_id, NEW.day, NEW.currency, NEW.payments);"
                            + " RETURN NEW; END $$ LANGUAGE plpgsql SECURITY DEFINER");
            s.execute(
                    "CREATE TRIGGER log_totals_version AFTER INSERT OR UPDATE ON"
                            + " merchant_daily_totals FOR EACH ROW EXECUTE FUNCTION"
                            + " log_totals_version()");
        }
    }

    /**
     * Per success from {@code since}: the first logged version of its row that counted it, minus
     * its commit time. The k-th success of a merchant-day is counted by the first version whose
     * count reaches k.
     */
    private static List<Double> versionDelays(PostgresEndpoint db, Instant since) throws Exception {
        String sql =
                "WITH s AS (SELECT merchant_id, (updated_at AT TIME ZONE 'UTC')::date AS day,"
                        + " currency, updated_at, row_number() OVER (PARTITION BY merchant_id,"
                        + " (updated_at AT TIME ZONE 'UTC')::date, currency ORDER BY updated_at) AS k"
                        + " FROM payments WHERE state = 'SUCCEEDED')"
                        + " SELECT extract(epoch FROM (SELECT min(v.seen_at) FROM totals_versions v"
                        + " WHERE v.merchant_id = s.merchant_id AND v.day = s.day"
                        + " AND v.currency = s.currency AND v.payments >= s.k) - s.updated_at) * 1000"
                        + " FROM s WHERE s.updated_at >= ?";
        List<Double> delays = new ArrayList<>();
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement(sql)) {
            s.setObject(1, OffsetDateTime.ofInstant(since, ZoneOffset.UTC));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    double d = rs.getDouble(1);
                    if (!rs.wasNull()) {
                        delays.add(d);
                    }
                }
            }
        }
        return delays;
    }

    /** Percentiles of a list of delays in ms. */
    private record Stats(double[] sorted) {

        static Stats of(List<Double> delays) {
            return new Stats(delays.stream().mapToDouble(Double::doubleValue).sorted().toArray());
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
}
