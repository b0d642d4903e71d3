package io.effonce.testing.oracle;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The truth every end-to-end test checks against: the daily totals the ledger itself implies,
 * computed by SQL over {@code payments}, and their comparison with what the job wrote to {@code
 * merchant_daily_totals}. The invariant (README.md, "How it works"): for every key, sink total +
 * late total = ledger total, and the sink has no key the ledger lacks.
 *
 * <p>Each query opens a session of its own, unless the oracle {@linkplain #keepingSession keeps
 * one}: what polls or samples many times a second should, since every new session costs PostgreSQL
 * a process and both sides a password exchange (a few milliseconds of CPU).
 */
public final class LedgerOracle implements AutoCloseable {

    private static final String LEDGER =
            "SELECT merchant_id, (updated_at AT TIME ZONE ?)::date AS day, currency,"
                    + " sum(amount), count(*) FROM payments WHERE state = 'SUCCEEDED'"
                    + " GROUP BY 1, 2, 3";
    private static final String SINK =
            "SELECT merchant_id, day, currency, total_minor, payments FROM merchant_daily_totals";
    private static final String COMMITTED =
            "SELECT merchant_id, day, currency, total_minor, payments"
                    + " FROM merchant_daily_totals_committed";
    private static final String FINAL =
            "SELECT merchant_id, day, currency, total_minor, payments"
                    + " FROM merchant_daily_totals_final";
    private static final String LATE =
            "SELECT merchant_id, day, currency, sum(amount), count(*) FROM late_events"
                    + " GROUP BY 1, 2, 3";

    private final PostgresEndpoint db;
    private final ZoneId zone;
    private final boolean keepSession;
    private Connection session;

    /** An oracle over {@code db}, with days in UTC. */
    public LedgerOracle(PostgresEndpoint db) {
        this(db, ZoneId.of("UTC"));
    }

    /** An oracle over {@code db}, with days as dates in {@code zone} (the job's zone). */
    public LedgerOracle(PostgresEndpoint db, ZoneId zone) {
        this(db, zone, false);
    }

    private LedgerOracle(PostgresEndpoint db, ZoneId zone, boolean keepSession) {
        this.db = db;
        this.zone = zone;
        this.keepSession = keepSession;
    }

    /**
     * An oracle over {@code db}, days in UTC, whose queries share one session (autocommit: each
     * reads what is committed when it runs); a query whose session has gone runs again on a new
     * one. Close it.
     */
    public static LedgerOracle keepingSession(PostgresEndpoint db) {
        return new LedgerOracle(db, ZoneId.of("UTC"), true);
    }

    /** The ledger's SUCCEEDED payments, summed per merchant, day and currency. */
    public SortedMap<MerchantDay, Total> ledgerTotals() {
        return query(LEDGER, zone.getId());
    }

    /** What the sink wrote to {@code merchant_daily_totals}. */
    public SortedMap<MerchantDay, Total> sinkTotals() {
        return query(SINK, null);
    }

    /** The committed read contract: each key as of the latest completed checkpoint. */
    public SortedMap<MerchantDay, Total> committedTotals() {
        return query(COMMITTED, null);
    }

    /** What dashboards show: the view {@code merchant_daily_totals_final}. */
    public SortedMap<MerchantDay, Total> finalTotals() {
        return query(FINAL, null);
    }

    /** The late changes deduplication rejected, summed per key ({@code late_events}). */
    public SortedMap<MerchantDay, Total> lateTotals() {
        return query(LATE, null);
    }

    /** Compares the ledger with the sink alone: every late event shows as a difference. */
    public Comparison compareWithSink() {
        return Comparison.of(ledgerTotals(), sinkTotals());
    }

    /** Compares the ledger with the sink plus late events, the invariant after a batch recount. */
    public Comparison compareWithSinkAndLate() {
        return Comparison.of(ledgerTotals(), sum(sinkTotals(), lateTotals()));
    }

    /** The expected totals of a ledger in shards: every shard's, key by key, added up. */
    public static SortedMap<MerchantDay, Total> ledgerTotals(List<PostgresEndpoint> shards) {
        SortedMap<MerchantDay, Total> totals = new TreeMap<>();
        for (PostgresEndpoint shard : shards) {
            totals = sum(totals, new LedgerOracle(shard).ledgerTotals());
        }
        return totals;
    }

    /** The key-wise sum of two maps of totals. */
    public static SortedMap<MerchantDay, Total> sum(
            Map<MerchantDay, Total> a, Map<MerchantDay, Total> b) {
        SortedMap<MerchantDay, Total> result = new TreeMap<>(a);
        b.forEach((k, v) -> result.merge(k, v, Total::plus));
        return result;
    }

    private synchronized SortedMap<MerchantDay, Total> query(String sql, String parameter) {
        try {
            if (!keepSession) {
                try (Connection connection = db.connect()) {
                    return query(connection, sql, parameter);
                }
            }
            if (session != null) {
                try {
                    return query(session, sql, parameter);
                } catch (SQLException e) {
                    // The kept session may have gone with a restart between two queries: the
                    // query runs again on a new one, and fails only if that fails too.
                    close();
                }
            }
            session = db.connect();
            return query(session, sql, parameter);
        } catch (SQLException e) {
            close();
            throw new IllegalStateException(
                    "The oracle could not read " + db + ": " + e.getMessage(), e);
        }
    }

    private SortedMap<MerchantDay, Total> query(Connection connection, String sql, String parameter)
            throws SQLException {
        SortedMap<MerchantDay, Total> totals = new TreeMap<>();
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            if (parameter != null) {
                statement.setString(1, parameter);
            }
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    MerchantDay key =
                            new MerchantDay(
                                    rs.getString(1),
                                    rs.getObject(2, java.time.LocalDate.class),
                                    rs.getString(3).strip());
                    totals.put(key, new Total(rs.getLong(4), rs.getLong(5)));
                }
            }
        }
        return totals;
    }

    /** Closes the kept session, if any; a later query opens a new one. */
    @Override
    public synchronized void close() {
        if (session != null) {
            try {
                session.close();
            } catch (SQLException ignored) {
                // A broken session: closing it is all that was left to do.
            }
            session = null;
        }
    }

    public ZoneId zone() {
        return zone;
    }
}
