package io.effonce.sink.internal.postgres;

import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/** Table names from configuration, validated before they are put into SQL text. */
@Internal
public final class SqlIdentifier {

    private static final Pattern NAME =
            Pattern.compile("[a-z_][a-z0-9_]{0,62}(\\.[a-z_][a-z0-9_]{0,62})?");

    private SqlIdentifier() {}

    /**
     * Returns {@code name} if it is a plain (optionally schema-qualified) lower-case identifier.
     */
    public static String require(String option, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    option
                            + " must be a lower-case table name (letters, digits, underscores,"
                            + " optionally schema.table), was '"
                            + name
                            + "'");
        }
        return name;
    }

    /**
     * {@link #require}s a table name that leaves room for its longest derived table's {@code
     * suffix} within PostgreSQL's 63 characters.
     */
    public static String requireTable(String option, String table, String suffix) {
        require(option, table);
        String name = table.substring(table.indexOf('.') + 1);
        if (name.length() + suffix.length() > 63) {
            throw new IllegalArgumentException(
                    option
                            + " must leave room for the suffix "
                            + suffix
                            + " of its committed table within PostgreSQL's 63 characters (at most "
                            + (63 - suffix.length())
                            + "), was '"
                            + table
                            + "'");
        }
        return table;
    }
}
