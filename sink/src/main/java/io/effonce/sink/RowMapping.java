package io.effonce.sink;

import java.io.Serializable;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * How a key and a value of the sink are columns of its tables. The job that owns the types gives
 * the mapping; the sink builds its statements from it and knows no column of its own beyond the
 * barrier tag, the checkpoint and the key group. The key columns are the tables' primary key.
 */
@PublicEvolving
public interface RowMapping<K, V> extends Serializable {

    /** The key's columns, in the order of {@link #keyColumn} and {@link #readKey}. */
    List<Column> keyColumns();

    /** The value's columns, in the order of {@link #valueColumn}. */
    List<Column> valueColumns();

    /** The value of key column {@code index}, of the Java type its {@link ColumnType} names. */
    Object keyColumn(K key, int index);

    /** The value of value column {@code index}, as for keys; {@code null} is SQL NULL. */
    Object valueColumn(V value, int index);

    /** The key of the current row, whose key columns start at {@code firstColumn}. */
    K readKey(ResultSet row, int firstColumn) throws SQLException;
}
