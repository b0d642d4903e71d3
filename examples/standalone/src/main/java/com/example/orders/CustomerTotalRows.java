package com.example.orders;

import io.effonce.sink.Column;
import io.effonce.sink.ColumnType;
import io.effonce.sink.RowMapping;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** The totals table's columns: {@code customer} (the key) and {@code total}. */
public enum CustomerTotalRows implements RowMapping<Long, Long> {
    MAPPING;

    @Override
    public List<Column> keyColumns() {
        return List.of(new Column("customer", ColumnType.BIGINT));
    }

    @Override
    public List<Column> valueColumns() {
        return List.of(new Column("total", ColumnType.BIGINT));
    }

    @Override
    public Object keyColumn(Long customer, int index) {
        return customer;
    }

    @Override
    public Object valueColumn(Long total, int index) {
        return total;
    }

    @Override
    public Long readKey(ResultSet row, int first) throws SQLException {
        return row.getLong(first);
    }
}
