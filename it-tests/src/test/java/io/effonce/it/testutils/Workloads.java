package io.effonce.it.testutils;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;

/**
 * Ledger workloads for the tests: deterministic, event times from a simulated clock in the past
 * (from 2025-03-01T06:00Z, 5 s per payment, so 20,000 payments span two days), optionally paced.
 */
public final class Workloads {

    public static final Instant START = Instant.parse("2025-03-01T06:00:00Z");

    private Workloads() {}

    /** {@code count} payments of scope {@code scope}, {@code rate} per second (0 = flat out). */
    public static WorkloadOptions.Builder options(String scope, long count, double rate) {
        return WorkloadOptions.builder()
                .count(count)
                .rate(rate)
                .scope(scope)
                .seed(scope.hashCode())
                .clock(EventClock.simulated(START, Duration.ofSeconds(5)));
    }

    /**
     * Payments of scope {@code scope} at {@code rate} per second until the test stops them: for a
     * {@link RunningWorkload}, which overlaps faults by construction.
     */
    public static WorkloadOptions.Builder unbounded(String scope, double rate) {
        return options(scope, Long.MAX_VALUE, rate);
    }

    /** The same, with event times from {@code start}. */
    public static WorkloadOptions.Builder options(
            String scope, long count, double rate, Instant start) {
        return options(scope, count, rate)
                .clock(EventClock.simulated(start, Duration.ofSeconds(5)));
    }

    /** Runs the workload on another thread. */
    public static CompletableFuture<WorkloadReport> runAsync(
            WorkloadOptions.Builder options, PostgresEndpoint db) {
        WorkloadOptions built = options.build();
        return CompletableFuture.supplyAsync(() -> new LedgerWorkload(built).run(db));
    }

    /**
     * A second, unpaced workload of {@code count} payments whose event time starts at {@link
     * #afterNewestChange}: after a fault, the first part's watermark is already hours past its
     * events.
     */
    public static WorkloadReport runAfterFault(String scope, long count, PostgresEndpoint db) {
        return runAsync(options(scope, count, 0, afterNewestChange(db)), db).join();
    }

    /**
     * The midnight after the newest {@code updated_at} in {@code db}'s ledger. A workload that ran
     * until a fault stopped it went as far in event time as the machine's speed allowed (5 s per
     * payment: a slow run's first part can span days), and the job's watermark went with it; event
     * time after that is never judged late.
     */
    public static Instant afterNewestChange(PostgresEndpoint db) {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT max(updated_at) FROM payments")) {
            rs.next();
            Timestamp newest = rs.getTimestamp(1);
            Instant from = newest == null ? START : newest.toInstant();
            return from.truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1));
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the ledger's newest change", e);
        }
    }
}
