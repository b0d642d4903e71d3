package io.effonce.sink.internal.postgres;

import io.effonce.sink.Column;
import java.util.List;
import java.util.stream.Collectors;

/**
 * SQL text for a mapping's columns, as the single-statement batches over arrays ({@code unnest})
 * need it. Names come from the mapping's validated columns only.
 */
final class ColumnSql {

    private ColumnSql() {}

    /** {@code a, b, c}. */
    static String names(List<Column> columns) {
        return columns.stream().map(Column::name).collect(Collectors.joining(", "));
    }

    /** {@code ?::text[], ?::bigint[]...}: one array parameter per column. */
    static String arrays(List<Column> columns) {
        return columns.stream()
                .map(col -> "?::" + col.type().arrayCast())
                .collect(Collectors.joining(", "));
    }

    /** {@code u.c0, u.c1::date...}: each array's element as its column's type. */
    static String elements(List<Column> columns) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            b.append(i == 0 ? "" : ", ")
                    .append("u.c")
                    .append(i)
                    .append(columns.get(i).type().elementCast());
        }
        return b.toString();
    }

    static String aliases(int count) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < count; i++) {
            b.append(i == 0 ? "c" : ", c").append(i);
        }
        return b.toString();
    }
}
