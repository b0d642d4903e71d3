package io.effonce.sink.sql;

import io.effonce.sink.Column;
import io.effonce.sink.RowMapping;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * A SQL table's rows for the flushable sink: the key is the row's primary key, the value its other
 * columns, each as Flink's binary row. Keys are always {@link BinaryRowData} — from the stream and
 * from the table alike — because Flink assigns a key its key group by its hash code, and a binary
 * row's hash is that of its bytes: a key read back from PostgreSQL lands in the key group it was
 * written from.
 */
final class RowDataMapping implements RowMapping<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private final SqlColumns key;
    private final SqlColumns value;
    private transient RowDataSerializer keySerializer;
    private transient RowDataSerializer valueSerializer;

    RowDataMapping(RowType keyType, RowType valueType) {
        for (RowType.RowField field : keyType.getFields()) {
            SqlColumns.requireExactKey(field.getName(), field.getType());
        }
        this.key = new SqlColumns(keyType);
        this.value = new SqlColumns(valueType);
    }

    RowType keyType() {
        return key.rowType();
    }

    RowType valueType() {
        return value.rowType();
    }

    @Override
    public List<Column> keyColumns() {
        return key.columns();
    }

    @Override
    public List<Column> valueColumns() {
        return value.columns();
    }

    @Override
    public Object keyColumn(RowData row, int index) {
        return key.jdbcValue(row, index);
    }

    @Override
    public Object valueColumn(RowData row, int index) {
        return value.jdbcValue(row, index);
    }

    @Override
    public RowData readKey(ResultSet row, int firstColumn) throws SQLException {
        return binaryKey(key.read(row, firstColumn));
    }

    /** The key as the sink keeps it: a binary row of the key's columns, a copy of its own. */
    BinaryRowData binaryKey(GenericRowData fields) {
        if (keySerializer == null) {
            keySerializer = new RowDataSerializer(key.rowType());
        }
        return keySerializer.toBinaryRow(fields).copy();
    }

    /** The value as the sink keeps it, a copy of its own. */
    BinaryRowData binaryValue(GenericRowData fields) {
        if (valueSerializer == null) {
            valueSerializer = new RowDataSerializer(value.rowType());
        }
        return valueSerializer.toBinaryRow(fields).copy();
    }
}
