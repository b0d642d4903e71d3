package io.effonce.cdc.testutils;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ledger's own record of every change to {@code payments}: a row-level trigger appends (op,
 * state) to an audit table in the same transaction, so the audit holds exactly the committed
 * changes, and per payment in commit order (updates of one row are serialised by its row lock). It
 * is the oracle the relay's topic is compared with. The audit table is not in the publication.
 */
public final class ChangeAudit {

    private final PostgresEndpoint db;

    private ChangeAudit(PostgresEndpoint db) {
        this.db = db;
    }

    /** Installs the trigger (as a superuser endpoint); idempotent. */
    public static ChangeAudit install(PostgresEndpoint db) {
        String sql =
                """
                CREATE TABLE IF NOT EXISTS payments_audit (
                  seq BIGSERIAL PRIMARY KEY, payment_id TEXT NOT NULL, op CHAR(1) NOT NULL,
                  state TEXT NOT NULL);
                CREATE OR REPLACE FUNCTION payments_audit_row() RETURNS trigger AS $$
                BEGIN
                  INSERT INTO payments_audit (payment_id, op, state)
                  VALUES (NEW.payment_id, CASE WHEN TG_OP = 'INSERT' THEN 'c' ELSE 'u' END, NEW.state);
                  RETURN NEW;
                END $$ LANGUAGE plpgsql;
                DROP TRIGGER IF EXISTS payments_audit_trg ON payments;
                CREATE TRIGGER payments_audit_trg AFTER INSERT OR UPDATE ON payments
                  FOR EACH ROW EXECUTE FUNCTION payments_audit_row();
                """;
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Cannot install the change audit: " + e.getMessage(), e);
        }
        return new ChangeAudit(db);
    }

    /** Every committed change, per payment_id, in commit order, as {@code op:state}. */
    public Map<String, List<String>> changes() {
        Map<String, List<String>> byPayment = new HashMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT payment_id, op, state FROM payments_audit ORDER BY seq")) {
            while (rs.next()) {
                byPayment
                        .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                        .add(rs.getString(2) + ":" + rs.getString(3));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the change audit: " + e.getMessage(), e);
        }
        return byPayment;
    }

    /** Number of committed changes so far. */
    public long count() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM payments_audit")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
