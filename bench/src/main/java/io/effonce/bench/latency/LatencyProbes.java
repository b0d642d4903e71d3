package io.effonce.bench.latency;

import static org.awaitility.Awaitility.await;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * What the freshness benchmark reads from the ledger's database, without touching the path it
 * measures: when the totals count every success, each row's last success beside the row's own
 * times, and (with the version log) the first version of a row that counted each success.
 */
final class LatencyProbes {

    private LatencyProbes() {}

    /** Waits until {@code table} counts every success of the ledger; 120 s at most. */
    static void awaitAllCounted(PostgresEndpoint db, int run, String table) {
        String what = "run %d: %s counting every success of the ledger".formatted(run, table);
        // On a timeout Awaitility names this and the last Counts: the job is behind or stuck
        // (its logs are under target/latency-bench).
        await(what)
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> counts(db, table), Counts::complete);
    }

    /** What a totals table counts, and the ledger's successes (shown when the wait times out). */
    private record Counts(long counted, long successes) {
        boolean complete() {
            return counted == successes;
        }
    }

    private static Counts counts(PostgresEndpoint db, String table) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT (SELECT coalesce(sum(payments), 0) FROM "
                                        + table
                                        + "), (SELECT count(*) FROM payments WHERE state ="
                                        + " 'SUCCEEDED')")) {
            rs.next();
            return new Counts(rs.getLong(1), rs.getLong(2));
        }
    }

    record LastSuccess(
            String paymentId,
            long updatedAt,
            long writtenAt,
            long committedAt,
            long checkpointId) {}

    /** Per totals row: its last success, if committed from {@code from}, and the row's time. */
    static List<LastSuccess> lastSuccesses(PostgresEndpoint db, Instant from) throws Exception {
        String sql =
                "SELECT l.payment_id, extract(epoch FROM l.updated_at) * 1000,"
                        + " extract(epoch FROM t.written_at) * 1000,"
                        + " extract(epoch FROM k.committed_at) * 1000, k.checkpoint_id"
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
                                    Math.round(rs.getDouble(4)),
                                    rs.getLong(5)));
                }
            }
        }
        return rows;
    }

    static void installVersionLog(PostgresEndpoint db) throws Exception {
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
    static List<Double> versionDelays(PostgresEndpoint db, Instant since) throws Exception {
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
}
