package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.KeyGroupSpan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The owners' leases on {@code sink_fences} ({@code owner_seen_at}): renewed at each takeover and
 * recorded barrier, released when the owner closes, read by a start without state (row 5a of the
 * start table). Times are the database's, so a task's wrong clock cannot shorten a lease.
 */
final class LeaseRows {

    private LeaseRows() {}

    /** Per run owning key groups of the range and not closed: how long ago it was last seen. */
    static Map<String, Duration> read(Connection c, String table, KeyGroupSpan span)
            throws SQLException {
        Map<String, Duration> leases = new HashMap<>();
        try (PreparedStatement s =
                c.prepareStatement(
                        "SELECT owner_job, extract(epoch FROM now() - max(owner_seen_at))"
                                + " FROM sink_fences WHERE sink_table = ?"
                                + " AND key_group BETWEEN ? AND ? AND owner_seen_at IS NOT NULL"
                                + " GROUP BY owner_job")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    leases.put(
                            rs.getString(1),
                            Duration.ofNanos(Math.round(rs.getDouble(2) * 1_000_000_000d)));
                }
            }
        }
        return leases;
    }

    /** Releases the lease of {@code writer}'s fence rows in the range, if it still holds them. */
    static int release(Connection c, String table, KeyGroupSpan span, String writer)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "UPDATE sink_fences SET owner_seen_at = NULL WHERE sink_table = ?"
                                + " AND key_group BETWEEN ? AND ? AND owner_writer = ?")) {
            s.setString(1, table);
            s.setInt(2, span.first());
            s.setInt(3, span.last());
            s.setString(4, writer);
            return s.executeUpdate();
        }
    }
}
