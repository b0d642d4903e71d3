package io.effonce.sink;

import java.io.Serializable;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A column of the sink's tables: a plain lower-case name and its type. The name goes into SQL text
 * unquoted, so it may be neither a word PostgreSQL reserves nor a column the sink adds itself.
 */
@PublicEvolving
public record Column(String name, ColumnType type) implements Serializable {

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** The columns the sink adds to its live, committed and staged tables. */
    static final Set<String> SINK_OWN =
            Set.of(
                    "barrier_tag",
                    "key_group",
                    "written_at",
                    "checkpoint_id",
                    "committed_at",
                    "deleted");

    /**
     * PostgreSQL's reserved key words, and those that may name only a function or type ({@code
     * pg_get_keywords()} categories R and T, PostgreSQL 14 to 17): neither names a column unquoted.
     */
    static final Set<String> RESERVED =
            Set.of(
                    "all",
                    "analyse",
                    "analyze",
                    "and",
                    "any",
                    "array",
                    "as",
                    "asc",
                    "asymmetric",
                    "authorization",
                    "binary",
                    "both",
                    "case",
                    "cast",
                    "check",
                    "collate",
                    "collation",
                    "column",
                    "concurrently",
                    "constraint",
                    "create",
                    "cross",
                    "current_catalog",
                    "current_date",
                    "current_role",
                    "current_schema",
                    "current_time",
                    "current_timestamp",
                    "current_user",
                    "default",
                    "deferrable",
                    "desc",
                    "distinct",
                    "do",
                    "else",
                    "end",
                    "except",
                    "false",
                    "fetch",
                    "for",
                    "foreign",
                    "freeze",
                    "from",
                    "full",
                    "grant",
                    "group",
                    "having",
                    "ilike",
                    "in",
                    "initially",
                    "inner",
                    "intersect",
                    "into",
                    "is",
                    "isnull",
                    "join",
                    "lateral",
                    "leading",
                    "left",
                    "like",
                    "limit",
                    "localtime",
                    "localtimestamp",
                    "natural",
                    "not",
                    "notnull",
                    "null",
                    "offset",
                    "on",
                    "only",
                    "or",
                    "order",
                    "outer",
                    "overlaps",
                    "placing",
                    "primary",
                    "references",
                    "returning",
                    "right",
                    "select",
                    "session_user",
                    "similar",
                    "some",
                    "symmetric",
                    "system_user",
                    "table",
                    "tablesample",
                    "then",
                    "to",
                    "trailing",
                    "true",
                    "union",
                    "unique",
                    "user",
                    "using",
                    "variadic",
                    "verbose",
                    "when",
                    "where",
                    "window",
                    "with");

    public Column {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "A sink column must be a plain lower-case name (letters, digits, underscores),"
                            + " was '"
                            + name
                            + "'");
        }
        if (SINK_OWN.contains(name)) {
            throw new IllegalArgumentException(
                    "A sink column may not be named '"
                            + name
                            + "': the sink adds a column of that name to its tables ("
                            + String.join(", ", new TreeSet<>(SINK_OWN))
                            + "); rename it");
        }
        if (RESERVED.contains(name)) {
            throw new IllegalArgumentException(
                    "A sink column may not be named '"
                            + name
                            + "': PostgreSQL reserves the word, and the sink writes column names"
                            + " unquoted; rename it (say, '"
                            + name
                            + "_')");
        }
        Objects.requireNonNull(type, "type");
    }

    public static Column text(String name) {
        return new Column(name, ColumnType.TEXT);
    }

    public static Column date(String name) {
        return new Column(name, ColumnType.DATE);
    }

    public static Column bigint(String name) {
        return new Column(name, ColumnType.BIGINT);
    }
}
