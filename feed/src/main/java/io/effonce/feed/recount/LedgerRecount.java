package io.effonce.feed.recount;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The batch recount: a final day's totals recomputed from the ledger and published in {@code
 * merchant_daily_totals_recount}, which the view {@code merchant_daily_totals_final} prefers to the
 * committed totals.
 *
 * <p>It counts each SUCCEEDED payment of the day once — one event id, {@code payment_id:SUCCEEDED}
 * — rather than adding {@code late_events} to the committed totals: a late copy can re-deliver a
 * change the stream counted before its id expired, and adding it would count it twice. The late ids
 * are looked up in the ledger by event id only to report what they were.
 *
 * <p>A day is recounted only once it is final ({@code committed_progress.final_through}): before
 * that the stream still changes it, and the recount would hide those changes. Each day is one
 * REPEATABLE READ transaction, so the ledger, the committed totals and the late events it reads are
 * one snapshot. It writes only its own two tables; the stream never touches them.
 */
public final class LedgerRecount {

    /** The sink table whose progress says which days are final. */
    static final String SINK_TABLE = "merchant_daily_totals";

    private final Connection connection;
    private final ZoneId zone;

    /** {@code zone}: the job's {@code totals.zone}; days are dates in it. */
    public LedgerRecount(Connection connection, ZoneId zone) throws SQLException {
        this.connection = connection;
        this.zone = zone;
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    }

    /** The job's {@code totals.zone} as its sink recorded it, if it has committed yet. */
    public static Optional<ZoneId> jobZone(Connection connection) throws SQLException {
        try (PreparedStatement s =
                connection.prepareStatement(
                        "SELECT day_zone FROM committed_progress WHERE sink_table = ?")) {
            s.setString(1, SINK_TABLE);
            try (ResultSet rs = s.executeQuery()) {
                String zone = rs.next() ? rs.getString(1) : null;
                return Optional.ofNullable(zone).map(ZoneId::of);
            }
        }
    }

    /** The last final day, if every key group of the job has reported one. */
    public Optional<LocalDate> finalThrough() throws SQLException {
        try (PreparedStatement s =
                connection.prepareStatement(
                        "SELECT final_through FROM committed_progress WHERE sink_table = ?")) {
            s.setString(1, SINK_TABLE);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next()
                        ? Optional.ofNullable(rs.getObject(1, LocalDate.class))
                        : Optional.empty();
            } finally {
                connection.commit();
            }
        }
    }

    /**
     * Days with late events that no recount has seen yet (never recounted, or more late events
     * since), recounted days whose committed totals the stream changed since (an older savepoint
     * restored re-opened the day and the stream counted a payment for it: the recount no longer has
     * every payment), and the final days after a repair the sink recorded in {@code sink_repairs}
     * that no recount has seen since (a database that went back in time may have lost final rows
     * that no state holds any more), oldest first; {@code due} the final ones, {@code waiting} the
     * others.
     */
    public DaysWithLateEvents daysWithNewLateEvents() throws SQLException {
        Optional<LocalDate> finalThrough = finalThrough();
        List<LocalDate> due = new ArrayList<>();
        List<LocalDate> waiting = new ArrayList<>();
        try (PreparedStatement s =
                connection.prepareStatement(
                        "SELECT l.day FROM late_events l LEFT JOIN recounted_days r USING (day)"
                                + " GROUP BY l.day, r.late_seen"
                                + " HAVING r.late_seen IS NULL OR count(*) > r.late_seen"
                                + " UNION SELECT r.day FROM merchant_daily_totals_recount r"
                                + " LEFT JOIN merchant_daily_totals_committed c"
                                + " USING (merchant_id, day, currency)"
                                + " WHERE c.total_minor IS DISTINCT FROM r.committed_minor"
                                + " UNION SELECT g.day::date FROM sink_repairs s"
                                + " CROSS JOIN LATERAL generate_series(COALESCE("
                                + "s.final_through_found + 1, (SELECT min(day) FROM"
                                + " merchant_daily_totals_committed)), (SELECT final_through"
                                + " FROM committed_progress p WHERE p.sink_table = s.sink_table),"
                                + " INTERVAL '1 day') AS g(day)"
                                + " LEFT JOIN recounted_days d ON d.day = g.day::date"
                                + " WHERE s.sink_table = ? AND (d.recounted_at IS NULL"
                                + " OR d.recounted_at < s.repaired_at)"
                                + " ORDER BY 1")) {
            s.setString(1, SINK_TABLE);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    LocalDate day = rs.getObject(1, LocalDate.class);
                    boolean isFinal = finalThrough.map(f -> !day.isAfter(f)).orElse(false);
                    (isFinal ? due : waiting).add(day);
                }
            }
        } finally {
            connection.commit();
        }
        return new DaysWithLateEvents(due, waiting, finalThrough);
    }

    /** Late days: due now, and not final yet. */
    public record DaysWithLateEvents(
            List<LocalDate> due, List<LocalDate> waiting, Optional<LocalDate> finalThrough) {}

    /**
     * Recounts {@code day} and publishes it. Refuses a day that is not final yet unless {@code
     * evenIfOpen}: the stream still changes it.
     */
    public RecountedDay recount(LocalDate day, boolean evenIfOpen) throws SQLException {
        long begin = System.nanoTime();
        if (!evenIfOpen) {
            Optional<LocalDate> finalThrough = finalThrough();
            if (finalThrough.isEmpty() || day.isAfter(finalThrough.get())) {
                throw new DayNotFinalException(day, finalThrough);
            }
        }
        try {
            publish(day);
            RecountedDay result = summarize(day, begin);
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        }
    }

    private void publish(LocalDate day) throws SQLException {
        try (PreparedStatement s =
                connection.prepareStatement(
                        "DELETE FROM merchant_daily_totals_recount WHERE day = ?")) {
            s.setObject(1, day);
            s.executeUpdate();
        }
        try (PreparedStatement s =
                connection.prepareStatement(
                        "WITH ledger AS (SELECT merchant_id, currency, sum(amount) AS total,"
                                + " count(*) AS n FROM payments WHERE state = 'SUCCEEDED'"
                                + " AND updated_at >= ? AND updated_at < ? GROUP BY 1, 2),"
                                + " committed AS (SELECT merchant_id, currency, total_minor"
                                + " FROM merchant_daily_totals_committed WHERE day = ?),"
                                + " late AS (SELECT merchant_id, currency, count(*) AS n"
                                + " FROM late_events WHERE day = ? GROUP BY 1, 2),"
                                + " keys AS (SELECT merchant_id, currency FROM ledger"
                                + " UNION SELECT merchant_id, currency FROM committed)"
                                + " INSERT INTO merchant_daily_totals_recount (merchant_id, day,"
                                + " currency, total_minor, payments, committed_minor, late_events,"
                                + " recounted_at)"
                                + " SELECT k.merchant_id, ?, k.currency, COALESCE(l.total, 0),"
                                + " COALESCE(l.n, 0), c.total_minor, COALESCE(t.n, 0), now()"
                                + " FROM keys k LEFT JOIN ledger l USING (merchant_id, currency)"
                                + " LEFT JOIN committed c USING (merchant_id, currency)"
                                + " LEFT JOIN late t USING (merchant_id, currency)")) {
            s.setObject(1, start(day));
            s.setObject(2, start(day.plusDays(1)));
            s.setObject(3, day);
            s.setObject(4, day);
            s.setObject(5, day);
            s.executeUpdate();
        }
        try (PreparedStatement s =
                connection.prepareStatement(
                        "INSERT INTO recounted_days (day, recounted_at, late_seen, keys,"
                                + " changed_keys) SELECT ?, now(),"
                                + " (SELECT count(*) FROM late_events WHERE day = ?),"
                                + " count(*), count(*) FILTER (WHERE committed_minor IS DISTINCT"
                                + " FROM total_minor) FROM merchant_daily_totals_recount"
                                + " WHERE day = ?"
                                + " ON CONFLICT (day) DO UPDATE SET recounted_at ="
                                + " EXCLUDED.recounted_at, late_seen = EXCLUDED.late_seen,"
                                + " keys = EXCLUDED.keys, changed_keys = EXCLUDED.changed_keys")) {
            s.setObject(1, day);
            s.setObject(2, day);
            s.setObject(3, day);
            s.executeUpdate();
        }
    }

    /** The day's figures, the late ids looked up in the ledger by event id. */
    private RecountedDay summarize(LocalDate day, long begin) throws SQLException {
        int keys;
        int changed;
        long ledger;
        long committed;
        try (PreparedStatement s =
                connection.prepareStatement(
                        "SELECT keys, changed_keys, (SELECT COALESCE(sum(total_minor), 0) FROM"
                                + " merchant_daily_totals_recount WHERE day = ?),"
                                + " (SELECT COALESCE(sum(total_minor), 0) FROM"
                                + " merchant_daily_totals_committed WHERE day = ?)"
                                + " FROM recounted_days WHERE day = ?")) {
            s.setObject(1, day);
            s.setObject(2, day);
            s.setObject(3, day);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                keys = rs.getInt(1);
                changed = rs.getInt(2);
                ledger = rs.getLong(3);
                committed = rs.getLong(4);
            }
        }
        try (PreparedStatement s =
                connection.prepareStatement(
                        "SELECT count(*), count(p.payment_id), COALESCE(sum(p.amount), 0)"
                                + " FROM late_events l LEFT JOIN payments p"
                                + " ON l.event_id = p.payment_id || ':' || p.state"
                                + " AND p.payment_id = substring(l.event_id FROM '^(.*):[A-Z]+$')"
                                + " AND p.state = 'SUCCEEDED'"
                                + " AND p.updated_at >= ? AND p.updated_at < ?"
                                + " WHERE l.day = ?")) {
            s.setObject(1, start(day));
            s.setObject(2, start(day.plusDays(1)));
            s.setObject(3, day);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return new RecountedDay(
                        day,
                        keys,
                        changed,
                        ledger,
                        committed,
                        rs.getLong(1),
                        rs.getLong(2),
                        rs.getLong(3),
                        (System.nanoTime() - begin) / 1_000_000);
            }
        }
    }

    private OffsetDateTime start(LocalDate day) {
        return day.atStartOfDay(zone).toOffsetDateTime();
    }
}
