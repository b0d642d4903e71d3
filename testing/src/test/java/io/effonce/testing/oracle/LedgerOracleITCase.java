package io.effonce.testing.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison.Difference;
import io.effonce.testing.oracle.Comparison.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The oracle over a hand-written ledger: m1 has 12,000 + 3,000 EUR on 2025-01-01, m2 500 USD, m3
 * 700 GBP at 23:30 UTC on 2025-01-01 (already 2025-01-02 in Berlin); FAILED, PENDING and VOID rows
 * count for nothing.
 */
@ExtendWith(PostgresExtension.class)
class LedgerOracleITCase {

    private static final LocalDate JAN1 = LocalDate.of(2025, 1, 1);
    private static final MerchantDay M1 = new MerchantDay("m1", JAN1, "EUR");
    private static final MerchantDay M2 = new MerchantDay("m2", JAN1, "USD");
    private static final MerchantDay M3 = new MerchantDay("m3", JAN1, "GBP");
    private static final MerchantDay M4 = new MerchantDay("m4", JAN1, "EUR");

    @BeforeAll
    static void ledger(PostgresEndpoint db) throws SQLException {
        payment(db, "pay_1", "m1", 12_000, "EUR", "SUCCEEDED", "2025-01-01T10:00:00Z");
        payment(db, "pay_2", "m1", 3_000, "EUR", "SUCCEEDED", "2025-01-01T11:00:00Z");
        payment(db, "pay_3", "m1", 9_999, "EUR", "FAILED", "2025-01-01T12:00:00Z");
        payment(db, "pay_4", "m1", 8_888, "EUR", "PENDING", "2025-01-01T12:00:00Z");
        payment(db, "pay_5", "m2", 500, "USD", "SUCCEEDED", "2025-01-01T09:00:00Z");
        payment(db, "pay_6", "m3", 700, "GBP", "SUCCEEDED", "2025-01-01T23:30:00Z");
        payment(db, "pay_7", null, null, null, "VOID", "2025-01-01T08:00:00Z");
    }

    @Test
    void ledgerTotalsCountSucceededPaymentsByTheZonesDate(PostgresEndpoint db) {
        assertThat(new LedgerOracle(db).ledgerTotals())
                .containsExactly(
                        java.util.Map.entry(M1, new Total(15_000, 2)),
                        java.util.Map.entry(M2, new Total(500, 1)),
                        java.util.Map.entry(M3, new Total(700, 1)));
        assertThat(new LedgerOracle(db, ZoneId.of("Europe/Berlin")).ledgerTotals())
                .containsKey(new MerchantDay("m3", JAN1.plusDays(1), "GBP"))
                .doesNotContainKey(M3);
    }

    @Test
    void plantedMissingExtraAndWrongKeysAreReported(PostgresEndpoint db) throws SQLException {
        execute(db, "DELETE FROM merchant_daily_totals");
        execute(db, "DELETE FROM late_events");
        sink(db, M1, 12_000, 1); // wrong: README.md's under-billing of m1
        sink(db, M3, 700, 1); // right
        sink(db, M4, 250, 1); // extra: the ledger has no m4
        // m2 is missing

        Comparison c = new LedgerOracle(db).compareWithSink();

        assertThat(c.differences())
                .containsExactly(
                        new Difference(M1, Kind.WRONG, new Total(15_000, 2), new Total(12_000, 1)),
                        new Difference(M2, Kind.MISSING, new Total(500, 1), null),
                        new Difference(M4, Kind.EXTRA, null, new Total(250, 1)));
        assertThat(c.summary()).startsWith("4 merchant-days, 3 differences");
    }

    @Test
    void sinkPlusLateEqualsTheLedger(PostgresEndpoint db) throws SQLException {
        execute(db, "DELETE FROM merchant_daily_totals");
        execute(db, "DELETE FROM late_events");
        sink(db, M1, 12_000, 1);
        sink(db, M3, 700, 1);
        late(db, "pay_2:SUCCEEDED", M1, 3_000);
        late(db, "pay_5:SUCCEEDED", M2, 500);

        LedgerOracle oracle = new LedgerOracle(db);

        assertThat(oracle.compareWithSink().matches()).isFalse();
        Comparison withLate = oracle.compareWithSinkAndLate();
        assertThat(withLate.matches()).as(withLate.summary()).isTrue();
        assertThat(withLate.summary()).isEqualTo("3 merchant-days, 0 differences");
    }

    /**
     * An oracle that keeps its session reads what is committed at each query, not a snapshot, and
     * answers on a new session after its own was ended (a database restarted between two polls).
     */
    @Test
    void anOracleKeepingItsSessionReadsEachCommitAndOutlivesTheSession(PostgresEndpoint db)
            throws SQLException {
        execute(db, "DELETE FROM merchant_daily_totals");
        execute(db, "DELETE FROM late_events");
        try (LedgerOracle oracle = LedgerOracle.keepingSession(db)) {
            assertThat(oracle.sinkTotals()).isEmpty();
            sink(db, M2, 500, 1);
            assertThat(oracle.sinkTotals()).containsOnlyKeys(M2);
            List<Integer> sessions = otherSessions(db);
            assertThat(sessions).as("the oracle's session, open between queries").hasSize(1);
            oracle.sinkTotals();
            assertThat(otherSessions(db)).as("the same session, not a new one").isEqualTo(sessions);

            execute(
                    db,
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname ="
                            + " current_database() AND pid <> pg_backend_pid() AND state = 'idle'");
            assertThat(oracle.sinkTotals())
                    .as("answered on a new session, the ended one not reported")
                    .containsOnlyKeys(M2);
        }
    }

    /** The process ids of this database's client sessions other than the asking one. */
    private static List<Integer> otherSessions(PostgresEndpoint db) throws SQLException {
        List<Integer> pids = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT pid FROM pg_stat_activity WHERE datname ="
                                        + " current_database() AND pid <> pg_backend_pid()"
                                        + " AND backend_type = 'client backend' ORDER BY pid")) {
            while (rs.next()) {
                pids.add(rs.getInt(1));
            }
        }
        return pids;
    }

    private static void payment(
            PostgresEndpoint db,
            String id,
            String merchant,
            Integer amount,
            String currency,
            String state,
            String at)
            throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement p =
                        c.prepareStatement(
                                "INSERT INTO payments (payment_id, caller_id, client_key,"
                                        + " merchant_id, fingerprint, amount, currency, state,"
                                        + " updated_at) VALUES (?, 'u1', ?, ?, ?, ?, ?, ?, ?)")) {
            p.setString(1, id);
            p.setString(2, "K" + id);
            p.setString(3, merchant);
            p.setString(4, merchant == null ? null : "H" + id);
            p.setObject(5, amount == null ? null : amount.longValue(), java.sql.Types.BIGINT);
            p.setString(6, currency);
            p.setString(7, state);
            p.setObject(8, OffsetDateTime.parse(at));
            p.executeUpdate();
        }
    }

    private static void sink(PostgresEndpoint db, MerchantDay key, long total, long payments)
            throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement p =
                        c.prepareStatement(
                                "INSERT INTO merchant_daily_totals (merchant_id, day, currency,"
                                        + " total_minor, payments, barrier_tag, key_group)"
                                        + " VALUES (?, ?, ?, ?, ?, 1, 0)")) {
            p.setString(1, key.merchantId());
            p.setObject(2, key.day());
            p.setString(3, key.currency());
            p.setLong(4, total);
            p.setLong(5, payments);
            p.executeUpdate();
        }
    }

    private static void late(PostgresEndpoint db, String eventId, MerchantDay key, long amount)
            throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement p =
                        c.prepareStatement(
                                "INSERT INTO late_events (event_id, merchant_id, day, currency,"
                                        + " amount, event_time) VALUES (?, ?, ?, ?, ?, now())")) {
            p.setString(1, eventId);
            p.setString(2, key.merchantId());
            p.setObject(3, key.day());
            p.setString(4, key.currency());
            p.setLong(5, amount);
            p.executeUpdate();
        }
    }

    private static void execute(PostgresEndpoint db, String sql) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
