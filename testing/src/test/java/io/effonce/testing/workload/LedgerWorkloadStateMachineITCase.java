package io.effonce.testing.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.LedgerOracle;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Watches every change the generator makes through a trigger that records the ledger's own history
 * (not the generator's bookkeeping), and checks it against the payment state machine.
 */
@ExtendWith(PostgresExtension.class)
class LedgerWorkloadStateMachineITCase {

    private static final String AUDIT =
            "CREATE TABLE IF NOT EXISTS payment_changes ("
                    + " seq bigserial PRIMARY KEY, payment_id text NOT NULL, op text NOT NULL,"
                    + " old_state text, new_state text NOT NULL, updated_at timestamptz NOT NULL,"
                    + " txid bigint NOT NULL DEFAULT txid_current());"
                    + "CREATE OR REPLACE FUNCTION record_payment_change() RETURNS trigger AS $$"
                    + " BEGIN"
                    + "  INSERT INTO payment_changes (payment_id, op, old_state, new_state, updated_at)"
                    + "  VALUES (NEW.payment_id, TG_OP,"
                    + "   CASE WHEN TG_OP = 'UPDATE' THEN OLD.state END, NEW.state, NEW.updated_at);"
                    + "  RETURN NEW;"
                    + " END $$ LANGUAGE plpgsql;"
                    + "DROP TRIGGER IF EXISTS payments_audit ON payments;"
                    + "CREATE TRIGGER payments_audit AFTER INSERT OR UPDATE ON payments"
                    + " FOR EACH ROW EXECUTE FUNCTION record_payment_change();";

    private static final Set<String> ALLOWED_MOVES =
            Set.of(
                    "PENDING>UNKNOWN",
                    "PENDING>SUCCEEDED",
                    "PENDING>FAILED",
                    "UNKNOWN>SUCCEEDED",
                    "UNKNOWN>FAILED");

    @BeforeAll
    static void recordEveryChange(PostgresEndpoint db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(AUDIT);
        }
    }

    @Test
    void everyChangeFollowsTheStateMachine(PostgresEndpoint db) throws SQLException {
        WorkloadOptions options = options("sm", 5_000).build();
        WorkloadReport report = new LedgerWorkload(options).run(db);

        String sm = "payment_id IN (SELECT payment_id FROM payments WHERE caller_id LIKE 'sm-%')";
        // One birth per row, in an initial state: no second PENDING for one caller and key.
        assertThat(longs(db, "SELECT count(*) FROM payments WHERE caller_id LIKE 'sm-%'"))
                .containsExactly(5_000L);
        assertThat(
                        strings(
                                db,
                                "SELECT payment_id FROM payment_changes WHERE op = 'INSERT' AND "
                                        + sm
                                        + " GROUP BY 1 HAVING count(*) <> 1"))
                .isEmpty();
        assertThat(
                        strings(
                                db,
                                "SELECT DISTINCT new_state FROM payment_changes WHERE op = 'INSERT'"
                                        + " AND "
                                        + sm))
                .containsExactlyInAnyOrder("PENDING", "VOID");
        // Every move is allowed (none leaves a final state), and each kind occurs.
        assertThat(
                        strings(
                                db,
                                "SELECT DISTINCT old_state || '>' || new_state FROM payment_changes"
                                        + " WHERE op = 'UPDATE' AND "
                                        + sm))
                .containsExactlyInAnyOrderElementsOf(ALLOWED_MOVES);
        // Each change is its own transaction's only change to that payment, and time never
        // runs backwards for a payment.
        assertThat(
                        strings(
                                db,
                                "SELECT payment_id FROM payment_changes WHERE "
                                        + sm
                                        + " GROUP BY payment_id, txid HAVING count(*) > 1"))
                .isEmpty();
        assertThat(
                        strings(
                                db,
                                "SELECT payment_id FROM (SELECT payment_id, updated_at, lag(updated_at)"
                                        + " OVER (PARTITION BY payment_id ORDER BY seq) AS before"
                                        + " FROM payment_changes WHERE "
                                        + sm
                                        + ") c WHERE updated_at < before"))
                .isEmpty();
        // Everything ends in a final state, and the report counted what the ledger holds.
        assertThat(strings(db, "SELECT DISTINCT state FROM payments WHERE caller_id LIKE 'sm-%'"))
                .containsExactlyInAnyOrder("SUCCEEDED", "FAILED", "VOID");
        assertThat(report.stateChanges())
                .isEqualTo(
                        longs(
                                        db,
                                        "SELECT count(*) FROM payment_changes WHERE op = 'UPDATE'"
                                                + " AND "
                                                + sm)
                                .get(0));
        assertThat(report.casConflicts()).isZero();
    }

    @Test
    void retriesAreAnsweredFromTheDurableRow(PostgresEndpoint db) throws SQLException {
        WorkloadOptions options = options("retry", 5_000).build();
        PaymentPlans plans = new PaymentPlans(options);
        List<PaymentPlan> all = LongStream.range(0, 5_000).mapToObj(plans::plan).toList();

        WorkloadReport first = new LedgerWorkload(options).run(db);

        long liveRetries =
                all.stream()
                        .filter(p -> p.hasRetry() && p.initial() == PaymentState.PENDING)
                        .count();
        long lateOriginals =
                all.stream().filter(p -> p.hasRetry() && p.initial() == PaymentState.VOID).count();
        assertThat(liveRetries).isPositive();
        assertThat(lateOriginals).isPositive();
        assertThat(first.retriesAnswered()).isEqualTo(liveRetries);
        assertThat(first.lateOriginalsRefused()).isEqualTo(lateOriginals);

        // The whole run again, after it finished: every request hits its row and changes nothing.
        long changesBefore = longs(db, "SELECT count(*) FROM payment_changes").get(0);
        var totalsBefore = new LedgerOracle(db).ledgerTotals();
        WorkloadReport again = new LedgerWorkload(options).run(db);

        assertThat(again.created()).isZero();
        assertThat(again.answeredFromExisting()).isEqualTo(5_000);
        assertThat(again.stateChanges()).isZero();
        assertThat(longs(db, "SELECT count(*) FROM payment_changes").get(0))
                .isEqualTo(changesBefore);
        assertThat(new LedgerOracle(db).ledgerTotals()).isEqualTo(totalsBefore);
        // The durable rows carry the ids derived from each request's scope.
        Set<String> ids = new HashSet<>(all.stream().map(PaymentPlan::paymentId).toList());
        assertThat(strings(db, "SELECT payment_id FROM payments WHERE caller_id LIKE 'retry-%'"))
                .hasSize(5_000)
                .allMatch(ids::contains);
    }

    @Test
    void aStoppedWorkloadDrainsEveryStartedPaymentToAFinalState(PostgresEndpoint db)
            throws SQLException {
        // Unbounded in count: only the stop request ends it, after 1,000 payments have started.
        WorkloadOptions options = options("stop", Long.MAX_VALUE).build();
        WorkloadReport report =
                new LedgerWorkload(options).run(db, r -> {}, stopAfter(db, "stop", 1_000));

        assertThat(report.started()).isBetween(1_000L, 1_000L + 200);
        assertThat(longs(db, "SELECT count(*) FROM payments WHERE caller_id LIKE 'stop-%'"))
                .containsExactly(report.started());
        // Drained: nothing is left PENDING or UNKNOWN, and the report counted every final state.
        assertThat(strings(db, "SELECT DISTINCT state FROM payments WHERE caller_id LIKE 'stop-%'"))
                .containsExactlyInAnyOrder("SUCCEEDED", "FAILED", "VOID");
        assertThat(report.finalStates().values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(report.created());
    }

    /** A stop request that turns true once the ledger holds {@code n} payments of the scope. */
    private static BooleanSupplier stopAfter(PostgresEndpoint db, String scope, long n) {
        return () -> {
            try {
                return longs(
                                        db,
                                        "SELECT count(*) FROM payments WHERE caller_id LIKE '"
                                                + scope
                                                + "-%'")
                                .get(0)
                        >= n;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private static WorkloadOptions.Builder options(String scope, long count) {
        return WorkloadOptions.builder()
                .count(count)
                .scope(scope)
                .seed(11)
                .batchSize(200)
                .clock(
                        EventClock.simulated(
                                Instant.parse("2025-01-31T12:00:00Z"), Duration.ofSeconds(30)));
    }

    private static List<String> strings(PostgresEndpoint db, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    private static List<Long> longs(PostgresEndpoint db, String sql) throws SQLException {
        return strings(db, sql).stream().map(Long::valueOf).toList();
    }
}
