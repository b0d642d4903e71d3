package io.effonce.bench;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Compares a totals table with the expected totals: first by row count and sums (one cheap query),
 * then, when those agree, row by row.
 */
final class TotalsCheck {

    private final PostgresEndpoint db;
    private final String table;
    private final Map<TotalsKey, long[]> expected;
    private final long expectedTotal;
    private final long expectedPayments;

    TotalsCheck(PostgresEndpoint db, String table, Map<TotalsKey, long[]> expected) {
        this.db = db;
        this.table = table;
        this.expected = expected;
        this.expectedTotal = expected.values().stream().mapToLong(t -> t[0]).sum();
        this.expectedPayments = expected.values().stream().mapToLong(t -> t[1]).sum();
    }

    record Progress(long rows, long total, long payments, boolean sumsMatch) {
        @Override
        public String toString() {
            return rows + " rows, " + payments + " payments counted";
        }
    }

    Progress progress() throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*), coalesce(sum(total_minor), 0),"
                                        + " coalesce(sum(payments), 0) FROM "
                                        + table)) {
            rs.next();
            long rows = rs.getLong(1);
            long total = rs.getLong(2);
            long payments = rs.getLong(3);
            return new Progress(
                    rows,
                    total,
                    payments,
                    rows == expected.size()
                            && total == expectedTotal
                            && payments == expectedPayments);
        }
    }

    /** Whether every row equals its expected total and count, and no row is missing or extra. */
    boolean exact() throws SQLException {
        int matching = 0;
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT merchant_id, day, currency, total_minor, payments FROM "
                                        + table)) {
            while (rs.next()) {
                long[] want =
                        expected.get(
                                new TotalsKey(
                                        rs.getString(1),
                                        rs.getDate(2).toLocalDate(),
                                        rs.getString(3)));
                if (want == null || want[0] != rs.getLong(4) || want[1] != rs.getLong(5)) {
                    return false;
                }
                matching++;
            }
        }
        return matching == expected.size();
    }

    /**
     * Polls until the table is exact; returns {@link System#nanoTime()} at the start of the poll
     * that found it so (when it became exact, to within one poll). Fails after {@code limit},
     * naming what was awaited and the last progress seen.
     */
    long awaitExact(String what, Duration limit) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            long at = System.nanoTime();
            Progress progress = progress();
            if (progress.sumsMatch() && exact()) {
                return at;
            }
            if (at > deadline) {
                throw new IllegalStateException(
                        "Waited %s for %s: the table holds %s; expected %d rows, %d payments"
                                .formatted(
                                        limit, what, progress, expected.size(), expectedPayments));
            }
            TimeUnit.MILLISECONDS.sleep(100); // pacing of the poll of the table
        }
    }
}
