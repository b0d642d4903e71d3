package io.effonce.feed.page;

import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The page's reads, as the dashboard role: only the totals tables, the final view and {@code
 * committed_progress}, with bound parameters. The caller runs the three statements in one read-only
 * repeatable-read transaction, so a snapshot's figures are from one moment: the committed totals
 * beside the progress that describes them.
 */
final class SnapshotQuery {

    /** The sink table whose progress the page shows (the final view joins the same one). */
    static final String SINK_TABLE = "merchant_daily_totals";

    // GREATEST skips NULLs: the newest day of the tables and the final view (a day only the
    // recount counted, all its changes late, is in the view alone), or NULL while all are empty.
    // Each max() reads its table's primary key index from the end only if the index leads with
    // day, which it does not: on a very large table, pass --day.
    private static final String NEWEST_DAY =
            "SELECT GREATEST((SELECT max(day) FROM merchant_daily_totals_committed),"
                    + " (SELECT max(day) FROM merchant_daily_totals),"
                    + " (SELECT max(day) FROM merchant_daily_totals_final))";

    // The day's keys of either table (before the first checkpoint only the live table has any)
    // and of the final view (a key only the recount counted), ranked by committed (or final)
    // total, then live total.
    private static final String TOP_ROWS =
            "SELECT k.merchant_id, k.currency, c.total_minor, c.payments, c.checkpoint_id,"
                    + " l.total_minor, l.payments, COALESCE(f.day_final, false), f.source,"
                    + " f.total_minor, l.written_at"
                    + " FROM (SELECT merchant_id, currency FROM merchant_daily_totals_committed"
                    + "       WHERE day = ?"
                    + "       UNION SELECT merchant_id, currency FROM merchant_daily_totals"
                    + "       WHERE day = ?"
                    + "       UNION SELECT merchant_id, currency FROM merchant_daily_totals_final"
                    + "       WHERE day = ?) k"
                    + " LEFT JOIN merchant_daily_totals_committed c"
                    + "   ON c.merchant_id = k.merchant_id AND c.day = ? AND c.currency = k.currency"
                    + " LEFT JOIN merchant_daily_totals l"
                    + "   ON l.merchant_id = k.merchant_id AND l.day = ? AND l.currency = k.currency"
                    + " LEFT JOIN merchant_daily_totals_final f"
                    + "   ON f.merchant_id = k.merchant_id AND f.day = ? AND f.currency = k.currency"
                    + " ORDER BY COALESCE(c.total_minor, f.total_minor) DESC NULLS LAST,"
                    + " l.total_minor DESC NULLS LAST,"
                    + " k.merchant_id, k.currency"
                    + " LIMIT ?";

    private static final String PROGRESS =
            "SELECT checkpoint_id, complete_through, final_through, committed_at,"
                    + " last_restore_at, last_restored_checkpoint, key_groups, watermark,"
                    + " day_zone"
                    + " FROM committed_progress WHERE sink_table = ?";

    private final LocalDate fixedDay;
    private final int top;

    /** Reads the {@code top} biggest merchant-days of {@code fixedDay}, or of the newest day. */
    SnapshotQuery(LocalDate fixedDay, int top) {
        this.fixedDay = fixedDay;
        this.top = top;
    }

    /** The figures now; restores are left for the caller's {@link RestoreLog}. */
    Figures read(Connection c) throws SQLException {
        LocalDate day = fixedDay != null ? fixedDay : newestDay(c);
        Instant[] liveWrittenAt = {null};
        List<PageSnapshot.Row> rows = day == null ? List.of() : topRows(c, day, liveWrittenAt);
        return new Figures(day, rows, progress(c), liveWrittenAt[0]);
    }

    /**
     * One read: the day, its rows, the progress row if the sink has written one, and the newest
     * write among the rows' live totals.
     */
    record Figures(
            LocalDate day,
            List<PageSnapshot.Row> rows,
            PageSnapshot.AsOf asOf,
            Instant liveWrittenAt) {}

    private static LocalDate newestDay(Connection c) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(NEWEST_DAY);
                ResultSet rs = p.executeQuery()) {
            rs.next();
            return rs.getObject(1, LocalDate.class);
        }
    }

    private List<PageSnapshot.Row> topRows(Connection c, LocalDate day, Instant[] newestWrite)
            throws SQLException {
        try (PreparedStatement p = c.prepareStatement(TOP_ROWS)) {
            Date d = Date.valueOf(day);
            for (int i = 1; i <= 6; i++) {
                p.setDate(i, d);
            }
            p.setInt(7, top);
            List<PageSnapshot.Row> rows = new ArrayList<>(top);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    rows.add(
                            new PageSnapshot.Row(
                                    rs.getString(1),
                                    rs.getString(2),
                                    rs.getObject(3, Long.class),
                                    rs.getObject(4, Long.class),
                                    rs.getObject(5, Long.class),
                                    rs.getObject(6, Long.class),
                                    rs.getObject(7, Long.class),
                                    rs.getBoolean(8),
                                    rs.getString(9),
                                    rs.getObject(10, Long.class)));
                    Instant written = instant(rs.getObject(11, OffsetDateTime.class));
                    if (written != null
                            && (newestWrite[0] == null || written.isAfter(newestWrite[0]))) {
                        newestWrite[0] = written;
                    }
                }
            }
            return rows;
        }
    }

    private static PageSnapshot.AsOf progress(Connection c) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(PROGRESS)) {
            p.setString(1, SINK_TABLE);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return null; // the sink has not reported yet: "as of: not known yet"
                }
                return new PageSnapshot.AsOf(
                        rs.getObject(1, Long.class),
                        instant(rs.getObject(2, OffsetDateTime.class)),
                        rs.getObject(3, LocalDate.class),
                        instant(rs.getObject(4, OffsetDateTime.class)),
                        instant(rs.getObject(5, OffsetDateTime.class)),
                        rs.getObject(6, Long.class),
                        rs.getLong(7),
                        instant(rs.getObject(8, OffsetDateTime.class)),
                        rs.getString(9));
            }
        }
    }

    private static Instant instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }
}
