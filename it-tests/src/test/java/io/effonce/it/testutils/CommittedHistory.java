package io.effonce.it.testutils;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Every change to {@code merchant_daily_totals_committed}, in the order the database made them,
 * recorded by a row trigger from {@link #record} on. A test asks whether the committed view passed
 * through a given state, instead of hoping to read the table in the moment it held that state: the
 * verdict depends on what the database did, not on when the test looked.
 *
 * <p>Writes to one key are serialized by its row lock, so their order in the history is the order
 * they took effect; writes to different keys commute. A state the history passes through is
 * therefore one a reader could have seen.
 */
public final class CommittedHistory {

    private static final String INSTALL =
            """
            CREATE TABLE IF NOT EXISTS committed_history (
              seq BIGSERIAL PRIMARY KEY, deleted BOOLEAN NOT NULL,
              merchant_id TEXT NOT NULL, day DATE NOT NULL, currency TEXT NOT NULL,
              total_minor BIGINT, payments BIGINT);
            CREATE OR REPLACE FUNCTION committed_history_record() RETURNS trigger
              LANGUAGE plpgsql SECURITY DEFINER AS $$
            BEGIN
              IF TG_OP = 'DELETE' THEN
                INSERT INTO committed_history (deleted, merchant_id, day, currency)
                VALUES (true, OLD.merchant_id, OLD.day, OLD.currency);
              ELSE
                INSERT INTO committed_history
                  (deleted, merchant_id, day, currency, total_minor, payments)
                VALUES (false, NEW.merchant_id, NEW.day, NEW.currency, NEW.total_minor,
                        NEW.payments);
              END IF;
              RETURN NULL;
            END $$;
            DROP TRIGGER IF EXISTS committed_history ON merchant_daily_totals_committed;
            CREATE TRIGGER committed_history
              AFTER INSERT OR UPDATE OR DELETE ON merchant_daily_totals_committed
              FOR EACH ROW EXECUTE FUNCTION committed_history_record();
            TRUNCATE committed_history;
            """;

    private final PostgresEndpoint db;

    private CommittedHistory(PostgresEndpoint db) {
        this.db = db;
    }

    /** Starts recording every change to the committed table of {@code db} from now on. */
    public static CommittedHistory record(PostgresEndpoint db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(INSTALL);
        }
        return new CommittedHistory(db);
    }

    /**
     * Whether the committed table, holding {@code start} when recording began, held exactly {@code
     * target} after some prefix of the recorded changes (the start itself included).
     */
    public boolean passedThrough(Map<MerchantDay, Total> start, Map<MerchantDay, Total> target)
            throws SQLException {
        SortedMap<MerchantDay, Total> state = new TreeMap<>(start);
        int differing = differing(state, target);
        if (differing == 0) {
            return true;
        }
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT deleted, merchant_id, day, currency, total_minor,"
                                        + " payments FROM committed_history ORDER BY seq")) {
            while (rs.next()) {
                MerchantDay key =
                        new MerchantDay(
                                rs.getString(2),
                                rs.getObject(3, LocalDate.class),
                                rs.getString(4).strip());
                Total value = rs.getBoolean(1) ? null : new Total(rs.getLong(5), rs.getLong(6));
                boolean wasRight = Objects.equals(state.get(key), target.get(key));
                if (value == null) {
                    state.remove(key);
                } else {
                    state.put(key, value);
                }
                boolean isRight = Objects.equals(state.get(key), target.get(key));
                differing += (wasRight ? 1 : 0) - (isRight ? 1 : 0);
                if (differing == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How many changes were recorded. */
    public long changes() throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM committed_history")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static int differing(Map<MerchantDay, Total> state, Map<MerchantDay, Total> target) {
        int n = 0;
        for (Map.Entry<MerchantDay, Total> e : state.entrySet()) {
            if (!e.getValue().equals(target.get(e.getKey()))) {
                n++;
            }
        }
        for (MerchantDay key : target.keySet()) {
            if (!state.containsKey(key)) {
                n++;
            }
        }
        return n;
    }
}
