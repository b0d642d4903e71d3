package io.effonce.demo;

import io.effonce.local.PostgresEndpoint;
import io.effonce.local.workload.EventClock;
import io.effonce.local.workload.LedgerWorkload;
import io.effonce.local.workload.WorkloadOptions;
import io.effonce.local.workload.WorkloadReport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The delay from a ledger commit to the row changing in {@code merchant_daily_totals}: relay,
 * Kafka, the job on a local multi-process cluster and the sink, with the ledger changing at a
 * steady rate in real time. A trigger records every version of every totals row; the k-th success
 * of a merchant-day is visible from the first version whose count reaches k. Not a test; run it by
 * hand (see deploy/demo/README.md). Arguments: {@code [paymentsPerSecond=1000] [seconds=60]}.
 */
public final class LatencyBenchmark {

    public static void main(String[] args) throws Exception {
        double rate = args.length > 0 ? Double.parseDouble(args[0]) : 1000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        try (DemoStack stack =
                DemoStack.start(
                        Path.of("target/latency-bench"),
                        Path.of("job/target/effonce-job-0.1.0-SNAPSHOT-job.jar"),
                        2,
                        List.of())) {
            installVersionLog(stack.ledger);
            Instant start = Instant.now();
            WorkloadReport report =
                    new LedgerWorkload(
                                    WorkloadOptions.builder()
                                            .count((long) (rate * seconds))
                                            .rate(rate)
                                            .scope("latency")
                                            .seed(11)
                                            .clock(EventClock.accelerated(start, 1.0))
                                            .batchSize(50)
                                            .build())
                            .run(stack.ledger);
            // Poll until every success is visible in the totals, or 30 s.
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (delays(stack.ledger, start).size() < successes(stack.ledger)
                    && System.nanoTime() < deadline) {
                Thread.sleep(500); // pacing of a poll, not synchronisation of the measured path
            }
            System.out.printf(
                    "settings: %.0f payments/s (%.0f changes/s) for %d s, job parallelism 2 on a"
                            + " local 2-TaskManager cluster, checkpoints every 2 s, sink flush"
                            + " interval 200 ms, relay heartbeats 1 s, all on this machine%n",
                    rate,
                    (report.created() + report.stateChanges()) / report.elapsedSeconds(),
                    seconds);
            String topic = DemoStack.TOPIC_PREFIX + ".public.payments";
            Instant warm = start.plusSeconds(10);
            print("commit → totals row, whole run", delays(stack.ledger, start));
            print("commit → totals row, after 10 s warm-up", delays(stack.ledger, warm));
            print(
                    "commit → Kafka (relay), whole run",
                    RelayDelays.of(stack.kafka.bootstrapServers(), topic, start));
            print(
                    "commit → Kafka (relay), after 10 s warm-up",
                    RelayDelays.of(stack.kafka.bootstrapServers(), topic, warm));
        }
    }

    private static void print(String what, List<Double> delays) {
        Collections.sort(delays);
        System.out.printf(
                "%s: %d successes; median %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms%n",
                what,
                delays.size(),
                pct(delays, 50),
                pct(delays, 90),
                pct(delays, 99),
                delays.get(delays.size() - 1));
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

    private static long successes(PostgresEndpoint db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT count(*) FROM payments WHERE state = 'SUCCEEDED'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Per success: first time a version of its row counted it, minus its commit time. */
    private static List<Double> delays(PostgresEndpoint db, Instant since) throws Exception {
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
            s.setObject(1, java.time.OffsetDateTime.ofInstant(since, java.time.ZoneOffset.UTC));
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

    private static double pct(List<Double> sorted, int p) {
        return sorted.get(
                Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }
}
