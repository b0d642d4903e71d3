package io.effonce.sink;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The column types a {@link RowMapping} can use, and how a batch of values of each is bound: one
 * array parameter per column, so a batch of any size is one statement ({@code unnest}). A value
 * column may hold {@code null} (SQL NULL); a key column may not (it is the primary key).
 */
@PublicEvolving
public enum ColumnType {
    /** A {@code text} column (also for Flink's CHAR and VARCHAR); values are Strings. */
    TEXT("text", "text[]", ""),
    /** A {@code date} column; values are LocalDates, sent as ISO text and cast on the server. */
    DATE("date", "text[]", "::date"),
    /** A {@code bigint} column; values are Longs. */
    BIGINT("bigint", "bigint[]", ""),
    /** An {@code integer} column; values are Integers. */
    INTEGER("integer", "integer[]", ""),
    /** A {@code numeric} column; values are BigDecimals, sent as exact text. */
    NUMERIC("numeric", "text[]", "::numeric"),
    /** A {@code double precision} column; values are Doubles. */
    DOUBLE("double precision", "float8[]", ""),
    /** A {@code boolean} column; values are Booleans. */
    BOOLEAN("boolean", "boolean[]", ""),
    /** A {@code timestamp} (without time zone) column; values are LocalDateTimes, as ISO text. */
    TIMESTAMP("timestamp", "text[]", "::timestamp"),
    /** A {@code timestamptz} column; values are Instants, as ISO text in UTC. */
    TIMESTAMPTZ("timestamptz", "text[]", "::timestamptz");

    private final String sqlType;
    private final String arrayCast;
    private final String elementCast;

    ColumnType(String sqlType, String arrayCast, String elementCast) {
        this.sqlType = sqlType;
        this.arrayCast = arrayCast;
        this.elementCast = elementCast;
    }

    /** The column's type in a {@code CREATE TABLE}. */
    public String sqlType() {
        return sqlType;
    }

    /**
     * Whether a column of PostgreSQL type {@code type} (as {@code format_type} names it) holds this
     * type's values unchanged: a narrower integer refuses some (they are quarantined), but a real,
     * a timestamp of fewer digits, a date for a timestamp round them without a word, and a key that
     * comes back changed is another key. {@code character(n)} is taken for text: it pads shorter
     * values, so its values must have n characters (the job's currency codes do).
     */
    @Internal
    public boolean heldBy(String type) {
        return switch (this) {
            case TEXT ->
                    type.equals("text")
                            || type.startsWith("character varying")
                            || type.startsWith("character(");
            case BIGINT -> type.equals("bigint") || type.equals("numeric");
            case INTEGER ->
                    type.equals("integer") || type.equals("bigint") || type.equals("numeric");
            case NUMERIC -> type.equals("numeric");
            case TIMESTAMP ->
                    type.equals("timestamp without time zone")
                            || type.equals("timestamp(6) without time zone");
            case TIMESTAMPTZ ->
                    type.equals("timestamp with time zone")
                            || type.equals("timestamp(6) with time zone");
            default -> type.equals(sqlType);
        };
    }

    /** The cast of the array parameter, e.g. {@code ?::text[]}. */
    @Internal
    public String arrayCast() {
        return arrayCast;
    }

    /** The cast that gives an element of the array the column's type, e.g. {@code ::date}. */
    @Internal
    public String elementCast() {
        return elementCast;
    }

    /** The parameter for a batch of values of this type; {@code null} elements are SQL NULLs. */
    @Internal
    public Object bind(Connection c, Object[] values) throws SQLException {
        return switch (this) {
            case BIGINT -> bigints(c, values);
            case INTEGER -> c.createArrayOf("int4", values);
            case DOUBLE -> c.createArrayOf("float8", values);
            case BOOLEAN -> c.createArrayOf("bool", values);
            default -> c.createArrayOf("text", texts(values));
        };
    }

    /** A primitive array when there is no null (the job's totals: the fast path). */
    private static Object bigints(Connection c, Object[] values) throws SQLException {
        long[] longs = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                return c.createArrayOf("int8", values);
            }
            longs[i] = (Long) values[i];
        }
        return longs;
    }

    private static String[] texts(Object[] values) {
        String[] texts = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            texts[i] =
                    v == null ? null : v instanceof BigDecimal d ? d.toPlainString() : v.toString();
        }
        return texts;
    }
}
