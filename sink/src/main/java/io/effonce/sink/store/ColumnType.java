package io.effonce.sink.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The column types a {@link RowMapping} can use, and how a batch of values of each is bound: one
 * array parameter per column, so a batch of any size is one statement ({@code unnest}).
 */
public enum ColumnType {
    /** A {@code text} column; values are Strings. */
    TEXT("text[]", ""),
    /** A {@code date} column; values are LocalDates, sent as ISO text and cast on the server. */
    DATE("text[]", "::date"),
    /** A {@code bigint} column; values are longs. */
    BIGINT("bigint[]", "");

    private final String arrayCast;
    private final String elementCast;

    ColumnType(String arrayCast, String elementCast) {
        this.arrayCast = arrayCast;
        this.elementCast = elementCast;
    }

    /** The cast of the array parameter, e.g. {@code ?::text[]}. */
    String arrayCast() {
        return arrayCast;
    }

    /** The cast that gives an element of the array the column's type, e.g. {@code ::date}. */
    String elementCast() {
        return elementCast;
    }

    /** The parameter for a batch of values of this type. */
    Object bind(Connection c, Object[] values) throws SQLException {
        if (this == BIGINT) {
            long[] longs = new long[values.length];
            for (int i = 0; i < values.length; i++) {
                longs[i] = (Long) values[i];
            }
            return longs;
        }
        String[] texts = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            texts[i] = values[i].toString();
        }
        return c.createArrayOf("text", texts);
    }
}
