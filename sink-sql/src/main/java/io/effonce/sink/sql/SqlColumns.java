package io.effonce.sink.sql;

import io.effonce.sink.Column;
import io.effonce.sink.ColumnType;
import java.io.Serializable;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * The columns of one part of a table's rows (its primary key, or the rest) and how each Flink SQL
 * value becomes a JDBC value and back: the sink's tables hold text, integers, numerics, doubles,
 * booleans, dates and timestamps with and without zone. Any other type is refused when the table is
 * planned, naming the column.
 */
final class SqlColumns implements Serializable {

    private static final long serialVersionUID = 1L;

    private final RowType type;
    private final List<Column> columns;
    private final RowData.FieldGetter[] getters;

    SqlColumns(RowType type) {
        this.type = type;
        this.columns = new ArrayList<>();
        this.getters = new RowData.FieldGetter[type.getFieldCount()];
        for (int i = 0; i < type.getFieldCount(); i++) {
            String name = type.getFieldNames().get(i);
            LogicalType field = type.getTypeAt(i);
            columns.add(new Column(name, columnType(name, field)));
            getters[i] = RowData.createFieldGetter(field, i);
        }
    }

    RowType rowType() {
        return type;
    }

    List<Column> columns() {
        return List.copyOf(columns);
    }

    /** The JDBC value of field {@code index} of {@code row} (null for SQL NULL). */
    Object jdbcValue(RowData row, int index) {
        Object internal = getters[index].getFieldOrNull(row);
        if (internal == null) {
            return null;
        }
        LogicalType field = type.getTypeAt(index);
        return switch (field.getTypeRoot()) {
            case CHAR, VARCHAR -> internal.toString();
            case TINYINT -> ((Byte) internal).intValue();
            case SMALLINT -> ((Short) internal).intValue();
            case FLOAT -> ((Float) internal).doubleValue();
            case DECIMAL -> ((DecimalData) internal).toBigDecimal();
            case DATE -> LocalDate.ofEpochDay((Integer) internal);
            case TIMESTAMP_WITHOUT_TIME_ZONE -> ((TimestampData) internal).toLocalDateTime();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> ((TimestampData) internal).toInstant();
            default -> internal;
        };
    }

    /** The row whose columns start at {@code first} in {@code rs}, as Flink's internal data. */
    GenericRowData read(ResultSet rs, int first) throws SQLException {
        GenericRowData row = new GenericRowData(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            row.setField(i, internal(rs, first + i, type.getTypeAt(i)));
        }
        return row;
    }

    private static Object internal(ResultSet rs, int column, LogicalType field)
            throws SQLException {
        Object value =
                switch (field.getTypeRoot()) {
                    case CHAR, VARCHAR -> {
                        String s = rs.getString(column);
                        yield s == null ? null : StringData.fromString(s);
                    }
                    case BOOLEAN -> rs.getObject(column, Boolean.class);
                    case TINYINT -> {
                        Integer v = rs.getObject(column, Integer.class);
                        yield v == null ? null : v.byteValue();
                    }
                    case SMALLINT -> {
                        Integer v = rs.getObject(column, Integer.class);
                        yield v == null ? null : v.shortValue();
                    }
                    case INTEGER -> rs.getObject(column, Integer.class);
                    case BIGINT -> rs.getObject(column, Long.class);
                    case FLOAT -> {
                        Double v = rs.getObject(column, Double.class);
                        yield v == null ? null : v.floatValue();
                    }
                    case DOUBLE -> rs.getObject(column, Double.class);
                    case DECIMAL -> {
                        BigDecimal v = rs.getBigDecimal(column);
                        DecimalType d = (DecimalType) field;
                        yield v == null
                                ? null
                                : DecimalData.fromBigDecimal(v, d.getPrecision(), d.getScale());
                    }
                    case DATE -> {
                        LocalDate v = rs.getObject(column, LocalDate.class);
                        yield v == null ? null : (int) v.toEpochDay();
                    }
                    case TIMESTAMP_WITHOUT_TIME_ZONE -> {
                        LocalDateTime v = rs.getObject(column, LocalDateTime.class);
                        yield v == null ? null : TimestampData.fromLocalDateTime(v);
                    }
                    case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
                        OffsetDateTime v = rs.getObject(column, OffsetDateTime.class);
                        yield v == null ? null : TimestampData.fromInstant(v.toInstant());
                    }
                    default -> throw new IllegalStateException("unsupported type " + field);
                };
        return rs.wasNull() ? null : value;
    }

    /**
     * Refuses a primary-key column whose values PostgreSQL would not give back as the same key. The
     * restore flush reads keys back from the table and assigns them key groups by their bytes: a
     * key that comes back different lands in another key group (the restore fails for good) or is
     * deleted as a key state does not hold.
     */
    static void requireExactKey(String column, LogicalType field) {
        String why =
                switch (field.getTypeRoot()) {
                    case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                            precision(field) > 6
                                    ? "PostgreSQL keeps microseconds, so its nanoseconds would not"
                                            + " read back; declare it "
                                            + (field instanceof TimestampType
                                                    ? "TIMESTAMP"
                                                    : "TIMESTAMP_LTZ")
                                            + "(6) or less"
                                    : null;
                    case FLOAT, DOUBLE ->
                            "PostgreSQL gives every NaN back as one NaN and holds 0.0 and -0.0 as"
                                    + " the same key, which Flink keeps apart; use DECIMAL or BIGINT"
                                    + " for a key";
                    default -> null;
                };
        if (why != null) {
            throw new IllegalArgumentException(
                    "primary-key column "
                            + column
                            + " has type "
                            + field.asSummaryString()
                            + ", which the effonce-postgres sink cannot read back as the same key: "
                            + why
                            + ".");
        }
    }

    private static int precision(LogicalType field) {
        return field instanceof TimestampType t
                ? t.getPrecision()
                : ((LocalZonedTimestampType) field).getPrecision();
    }

    /** The sink's column type for a Flink SQL type; refuses the others, naming the column. */
    static ColumnType columnType(String column, LogicalType field) {
        return switch (field.getTypeRoot()) {
            case CHAR, VARCHAR -> ColumnType.TEXT;
            case BOOLEAN -> ColumnType.BOOLEAN;
            case TINYINT, SMALLINT, INTEGER -> ColumnType.INTEGER;
            case BIGINT -> ColumnType.BIGINT;
            case FLOAT, DOUBLE -> ColumnType.DOUBLE;
            case DECIMAL -> ColumnType.NUMERIC;
            case DATE -> ColumnType.DATE;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> ColumnType.TIMESTAMP;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> ColumnType.TIMESTAMPTZ;
            default ->
                    throw new ValidationException(
                            "Column "
                                    + column
                                    + " has type "
                                    + field.asSummaryString()
                                    + ", which the effonce-postgres sink cannot write. It writes"
                                    + " STRING/VARCHAR/CHAR, BOOLEAN, TINYINT/SMALLINT/INT,"
                                    + " BIGINT, FLOAT/DOUBLE, DECIMAL, DATE, TIMESTAMP and"
                                    + " TIMESTAMP_LTZ; CAST the column to one of them.");
        };
    }
}
