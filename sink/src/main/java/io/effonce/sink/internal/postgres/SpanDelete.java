package io.effonce.sink.internal.postgres;

import io.effonce.sink.internal.KeyGroupSpan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Deletes a range's rows of one table: the statement every table's {@code deleteRange} shares. */
final class SpanDelete {

    private SpanDelete() {}

    /** Deletes the rows of {@code table} in {@code span}{@code andWhere}; returns how many. */
    static int rows(Connection c, String table, KeyGroupSpan span, String andWhere, long... params)
            throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement(
                        "DELETE FROM " + table + " WHERE key_group BETWEEN ? AND ?" + andWhere)) {
            s.setInt(1, span.first());
            s.setInt(2, span.last());
            for (int i = 0; i < params.length; i++) {
                s.setLong(3 + i, params[i]);
            }
            return s.executeUpdate();
        }
    }
}
