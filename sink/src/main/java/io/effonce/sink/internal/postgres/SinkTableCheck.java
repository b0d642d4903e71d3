package io.effonce.sink.internal.postgres;

import io.effonce.sink.Column;
import io.effonce.sink.ColumnType;
import io.effonce.sink.RowMapping;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a sink's tables lack against its {@link RowMapping}, read from the catalog when a store
 * opens: a missing table, a missing column (the mapping's, or the sink's own {@code barrier_tag},
 * {@code key_group}, {@code checkpoint_id}, {@code deleted}, or the newest column of its own
 * tables), the sequence that numbers deployments, a mapping's column of a type that would change
 * its values ({@link ColumnType#heldBy}), or no index on the live table led by {@code barrier_tag}
 * (the restore flush reads the rows tagged after a checkpoint through it). A sink refused here
 * names them all at once, instead of failing on the first statement that needs one.
 */
final class SinkTableCheck {

    private static final String COLUMNS =
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
                    + " WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped";

    /** The newest column each of the sink's own tables gained from deploy/sql/sink.sql. */
    private static final String[][] UPGRADED = {
        {"sink_progress", "committed_lineage"}, {"sink_fences", "owner_suspect_from"}
    };

    /** An index of the table whose first column is barrier_tag. */
    private static final String TAG_INDEX =
            "SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                    + " AND a.attnum = i.indkey[0] WHERE i.indrelid = to_regclass(?)"
                    + " AND a.attname = 'barrier_tag'";

    private SinkTableCheck() {}

    /** Each thing the tables of {@code table} lack, as a phrase; empty when nothing is missing. */
    static List<String> missing(Connection c, String table, RowMapping<?, ?> mapping)
            throws SQLException {
        List<Column> data =
                Stream.concat(mapping.keyColumns().stream(), mapping.valueColumns().stream())
                        .toList();
        List<String> missing = new ArrayList<>();
        boolean liveExists = check(c, table, data, List.of("barrier_tag", "key_group"), missing);
        check(c, table + "_committed", data, List.of("checkpoint_id", "key_group"), missing);
        check(
                c,
                table + "_staged",
                data,
                List.of("checkpoint_id", "key_group", "deleted", "staged_by"),
                missing);
        if (liveExists && !hasTagIndex(c, table)) {
            missing.add("an index on " + table + " (barrier_tag, key_group)");
        }
        for (String[] newest : UPGRADED) {
            if (!columns(c, newest[0]).containsKey(newest[1])) {
                missing.add("column " + newest[0] + "." + newest[1]);
            }
        }
        // Without it no deployment was numbered where the graph was built (a warning there: the
        // script was not applied, which this refusal names).
        if (!exists(c, "sink_deployment")) {
            missing.add("the sequence sink_deployment");
        }
        return missing;
    }

    /** Adds what {@code table} lacks to {@code missing}; returns whether the table exists. */
    private static boolean check(
            Connection c, String table, List<Column> data, List<String> own, List<String> missing)
            throws SQLException {
        Map<String, String> present = columns(c, table);
        if (present.isEmpty()) {
            missing.add("table " + table);
            return false;
        }
        for (Column column : data) {
            String type = present.get(column.name());
            if (type == null) {
                missing.add("column " + table + "." + column.name());
            } else if (!column.type().heldBy(type)) {
                missing.add(
                        "column "
                                + table
                                + "."
                                + column.name()
                                + " of type "
                                + column.type().sqlType()
                                + " (it is "
                                + type
                                + ", which would not give the values back as they were written)");
            }
        }
        for (String column : own) {
            if (!present.containsKey(column)) {
                missing.add("column " + table + "." + column);
            }
        }
        return true;
    }

    /** Each column's name and type, as {@code format_type} names it. */
    private static Map<String, String> columns(Connection c, String table) throws SQLException {
        Map<String, String> columns = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(COLUMNS)) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return columns;
    }

    private static boolean exists(Connection c, String relation) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, relation);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static boolean hasTagIndex(Connection c, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(TAG_INDEX)) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        }
    }
}
