package io.effonce.job.testutils;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** What the job's side tables hold, read as a test checks it. */
public final class SideTableRows {

    private SideTableRows() {}

    /** The event ids in {@code late_events}. */
    public static List<String> lateEventIds(PostgresEndpoint db) throws Exception {
        return strings(db, "SELECT event_id FROM late_events");
    }

    /** The reasons in {@code dead_letters}. */
    public static List<String> deadLetterReasons(PostgresEndpoint db) throws Exception {
        return strings(db, "SELECT reason FROM dead_letters");
    }

    /** The one number {@code sql} returns. */
    public static long count(PostgresEndpoint db, String sql) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<String> strings(PostgresEndpoint db, String sql) throws Exception {
        List<String> found = new ArrayList<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                found.add(rs.getString(1));
            }
        }
        return found;
    }
}
