package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Logs in as each role of {@code roles.sql} over JDBC and checks that it can do what its component
 * needs and nothing more. Passwords are set here with ALTER ROLE, so the test also runs against an
 * external server that does not trust local connections.
 */
@ExtendWith(PostgresExtension.class)
class RolesITCase {

    private static final String PASSWORD = "test-" + UUID.randomUUID();
    private static final String DENIED = "42501"; // insufficient_privilege

    @BeforeAll
    static void setPasswordsAndSeedRows(PostgresEndpoint db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            for (String role :
                    new String[] {
                        "effonce_relay",
                        "effonce_sink",
                        "effonce_dashboard",
                        "effonce_recount",
                        "effonce_republish"
                    }) {
                // The password is a generated literal: ALTER ROLE takes no bound parameters.
                s.execute("ALTER ROLE " + role + " PASSWORD '" + PASSWORD + "'");
            }
            s.execute(
                    "INSERT INTO payments (payment_id, caller_id, client_key, merchant_id,"
                            + " fingerprint, amount, currency, state, updated_at) VALUES"
                            + " ('pay_r1', 'u1', 'K1', 'm1', 'H1', 3000, 'USD', 'SUCCEEDED', now())"
                            + " ON CONFLICT DO NOTHING");
        }
    }

    @Test
    void sinkWritesTheSinkTablesAndCannotReadTheLedger(PostgresEndpoint db) throws SQLException {
        PostgresEndpoint sink = db.as("effonce_sink", PASSWORD);
        allowed(
                sink,
                "INSERT INTO merchant_daily_totals (merchant_id, day, currency, total_minor,"
                        + " payments, barrier_tag, key_group) VALUES ('m1', '2025-01-01', 'EUR',"
                        + " 12000, 1, 1, 7) ON CONFLICT (merchant_id, day, currency) DO UPDATE SET"
                        + " total_minor = EXCLUDED.total_minor, payments = EXCLUDED.payments,"
                        + " barrier_tag = EXCLUDED.barrier_tag");
        allowed(
                sink,
                "SELECT merchant_id FROM merchant_daily_totals WHERE barrier_tag >= 1"
                        + " AND key_group BETWEEN 0 AND 63");
        allowed(sink, "DELETE FROM merchant_daily_totals WHERE merchant_id = 'none'");
        allowed(
                sink,
                "INSERT INTO late_events (event_id, merchant_id, day, currency, amount, event_time)"
                        + " VALUES ('pay_7:SUCCEEDED', 'm1', '2025-01-01', 'EUR', 3000, now())"
                        + " ON CONFLICT DO NOTHING");
        allowed(
                sink,
                "INSERT INTO dead_letters (topic, kafka_partition, kafka_offset, reason)"
                        + " VALUES ('t', 0, 1, 'bad json') ON CONFLICT DO NOTHING");
        allowed(
                sink,
                "INSERT INTO sink_fences (sink_table, key_group, owner_token, owner_job,"
                        + " owner_task) VALUES ('merchant_daily_totals', 7,"
                        + " nextval('sink_fence_token'), 'job', 'subtask 0 of 1, attempt 0')"
                        + " ON CONFLICT (sink_table, key_group) DO UPDATE SET"
                        + " owner_token = EXCLUDED.owner_token");
        allowed(sink, "SELECT owner_token FROM sink_fences WHERE key_group = 7 FOR SHARE");
        allowed(
                sink,
                "INSERT INTO sink_superseded_runs (sink_table, run, superseded_by)"
                        + " VALUES ('merchant_daily_totals', 'old/run', 'new/run')"
                        + " ON CONFLICT DO NOTHING");
        allowed(sink, "SELECT pg_notify('effonce_committed', '{}')");

        denied(sink, "SELECT * FROM payments");
        denied(sink, "UPDATE payments SET state = 'FAILED'");
        denied(sink, "CREATE TABLE sink_scratch (x int)");
        denied(sink, "SELECT pg_create_logical_replication_slot('sink_slot', 'pgoutput')");
    }

    @Test
    void recountReadsTheLedgerAndWritesOnlyItsOwnTables(PostgresEndpoint db) throws SQLException {
        PostgresEndpoint recount = db.as("effonce_recount", PASSWORD);
        allowed(recount, "SELECT sum(amount) FROM payments WHERE state = 'SUCCEEDED'");
        allowed(recount, "SELECT event_id FROM late_events");
        allowed(recount, "SELECT total_minor FROM merchant_daily_totals_committed");
        allowed(recount, "SELECT final_through FROM committed_progress");
        allowed(
                recount,
                "INSERT INTO merchant_daily_totals_recount (merchant_id, day, currency,"
                        + " total_minor, payments, late_events) VALUES ('m1', '2025-01-01', 'EUR',"
                        + " 1, 1, 0) ON CONFLICT DO NOTHING");
        allowed(recount, "DELETE FROM merchant_daily_totals_recount WHERE day = '2025-01-01'");
        allowed(
                recount,
                "INSERT INTO recounted_days (day, recounted_at, late_seen, keys, changed_keys)"
                        + " VALUES ('2025-01-01', now(), 0, 0, 0) ON CONFLICT DO NOTHING");

        denied(recount, "UPDATE payments SET state = 'FAILED'");
        denied(
                recount,
                "INSERT INTO late_events (event_id, merchant_id, day, currency, amount,"
                        + " event_time) VALUES ('x:SUCCEEDED', 'm1', '2025-01-01', 'EUR', 1, now())");
        denied(recount, "DELETE FROM merchant_daily_totals_committed");
        denied(recount, "SELECT * FROM merchant_daily_totals");
        denied(recount, "SELECT * FROM merchant_daily_totals_staged");
        denied(recount, "SELECT * FROM sink_fences");
        denied(recount, "SELECT * FROM sink_progress");
        denied(recount, "SELECT * FROM dead_letters");
        denied(recount, "CREATE TABLE recount_scratch (x int)");
        denied(recount, "SELECT pg_notify('effonce_committed', '{}')");
    }

    @Test
    void dashboardReadsTheTotalsAndCannotWrite(PostgresEndpoint db) throws SQLException {
        PostgresEndpoint dashboard = db.as("effonce_dashboard", PASSWORD);
        allowed(
                dashboard,
                "SELECT merchant_id, day, currency, total_minor FROM merchant_daily_totals");
        allowed(
                dashboard,
                "SELECT merchant_id, day, currency, total_minor, checkpoint_id"
                        + " FROM merchant_daily_totals_committed");
        allowed(
                dashboard,
                "SELECT merchant_id, day, currency, total_minor, source, day_final"
                        + " FROM merchant_daily_totals_final");
        allowed(
                dashboard,
                "SELECT checkpoint_id, complete_through, final_through, last_restore_at"
                        + " FROM committed_progress");
        allowed(dashboard, "LISTEN effonce_committed");
        denied(dashboard, "SELECT pg_notify('effonce_committed', '{\"checkpoint\":999}')");
        denied(dashboard, "SELECT * FROM merchant_daily_totals_staged");
        denied(dashboard, "SELECT * FROM merchant_daily_totals_recount");
        denied(dashboard, "SELECT * FROM recounted_days");
        denied(dashboard, "SELECT * FROM sink_progress");
        denied(dashboard, "SELECT * FROM dead_letters");
        denied(dashboard, "DELETE FROM merchant_daily_totals_committed");

        denied(
                dashboard,
                "INSERT INTO merchant_daily_totals (merchant_id, day, currency, total_minor,"
                        + " payments, barrier_tag, key_group) VALUES ('m9', '2025-01-01', 'EUR',"
                        + " 1, 1, 1, 1)");
        denied(dashboard, "UPDATE merchant_daily_totals SET total_minor = 0");
        denied(dashboard, "DELETE FROM merchant_daily_totals");
        denied(dashboard, "SELECT * FROM payments");
        denied(dashboard, "SELECT * FROM late_events");
        denied(dashboard, "SELECT * FROM sink_fences");
        denied(dashboard, "SELECT nextval('sink_fence_token')");
        denied(dashboard, "CREATE TABLE dashboard_scratch (x int)");
    }

    @Test
    void republishReadsTheDeadLettersAndNothingElse(PostgresEndpoint db) throws SQLException {
        PostgresEndpoint republish = db.as("effonce_republish", PASSWORD);
        allowed(
                republish,
                "SELECT topic, kafka_partition, kafka_offset, reason, raw_value FROM dead_letters"
                        + " WHERE starts_with(reason, 'event-time-ahead')");
        denied(republish, "DELETE FROM dead_letters");
        denied(
                republish,
                "INSERT INTO dead_letters (topic, kafka_partition, kafka_offset, reason)"
                        + " VALUES ('t', 0, 0, 'x')");
        denied(republish, "SELECT * FROM payments");
        denied(republish, "SELECT * FROM late_events");
        denied(republish, "SELECT * FROM merchant_daily_totals");
        denied(republish, "CREATE TABLE republish_scratch (x int)");
    }

    /**
     * A sink session cut off in the middle of a transaction must not hold its fence locks for the
     * hours TCP takes to notice: the server bounds it for the sink's role, whatever the client
     * asks.
     */
    @Test
    void theSinksSessionsAreBoundedOnTheServer(PostgresEndpoint db) throws SQLException {
        PostgresEndpoint sink = db.as("effonce_sink", PASSWORD);
        try (Connection c = sink.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT current_setting('idle_in_transaction_session_timeout'),"
                                        + " current_setting('lock_timeout'),"
                                        + " current_setting('tcp_keepalives_idle')")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("20s");
            assertThat(rs.getString(2)).isEqualTo("1min");
            assertThat(rs.getString(3)).isEqualTo("10");
        }
    }

    @Test
    void relayDecodesPaymentsAndCannotTouchTheSinkTables(PostgresEndpoint db) throws SQLException {
        PostgresEndpoint relay = db.as("effonce_relay", PASSWORD);
        allowed(relay, "SELECT payment_id, state, amount FROM payments");
        String slot = "effonce_roles_" + ProcessHandle.current().pid();
        try {
            allowed(relay, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute("UPDATE payments SET updated_at = now() WHERE payment_id = 'pay_r1'");
            }
            // The relay reads the change through the publication roles.sql created for it.
            try (Connection c = relay.connect();
                    PreparedStatement p =
                            c.prepareStatement(
                                    "SELECT count(*) FROM pg_logical_slot_peek_binary_changes(?,"
                                            + " NULL, NULL, 'proto_version', '1',"
                                            + " 'publication_names', 'effonce_payments')")) {
                p.setString(1, slot);
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    assertThat(rs.getLong(1)).isGreaterThanOrEqualTo(3); // begin, change, commit
                }
            }
        } finally {
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute(
                        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                                + " WHERE slot_name = '"
                                + slot
                                + "'");
            }
        }

        denied(relay, "UPDATE payments SET state = 'FAILED'");
        denied(
                relay,
                "INSERT INTO payments (payment_id, caller_id, client_key, state, updated_at)"
                        + " VALUES ('pay_x', 'u', 'k', 'VOID', now())");
        denied(relay, "SELECT * FROM merchant_daily_totals");
        denied(relay, "DELETE FROM merchant_daily_totals");
        denied(relay, "SELECT * FROM late_events");
        denied(relay, "SELECT * FROM dead_letters");
        denied(relay, "SELECT * FROM sink_fences");
        denied(relay, "SELECT nextval('sink_fence_token')");
        denied(relay, "CREATE TABLE relay_scratch (x int)");
    }

    private static void allowed(PostgresEndpoint role, String sql) {
        assertThatCode(() -> execute(role, sql))
                .as("%s may run %s", role.user(), sql)
                .doesNotThrowAnyException();
    }

    private static void denied(PostgresEndpoint role, String sql) {
        assertThatThrownBy(() -> execute(role, sql))
                .as("%s must not run %s", role.user(), sql)
                .isInstanceOfSatisfying(
                        SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(DENIED));
    }

    private static void execute(PostgresEndpoint role, String sql) throws SQLException {
        try (Connection c = role.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
