package io.effonce.sink.tables;

import java.io.Serializable;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/** A column of the sink's tables: a plain lower-case name and its type. */
@PublicEvolving
public record Column(String name, ColumnType type) implements Serializable {

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    public Column {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "A sink column must be a plain lower-case name (letters, digits, underscores),"
                            + " was '"
                            + name
                            + "'");
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
