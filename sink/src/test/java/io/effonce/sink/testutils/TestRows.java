package io.effonce.sink.testutils;

import io.effonce.sink.Column;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.RowMapping;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.testing.PostgresEndpoint;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.List;

/** {@link TestKey} and {@link TestTotal} as rows of the deployed totals tables. */
public enum TestRows implements RowMapping<TestKey, TestTotal> {
    MAPPING;

    /** A store of the deployed totals table in {@code db}, with this mapping. */
    public static SinkStoreFactory<TestKey, TestTotal> store(PostgresEndpoint db) {
        return PostgresStores.deployed(
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build(),
                MAPPING);
    }

    private static final List<Column> KEY =
            List.of(Column.text("merchant_id"), Column.date("day"), Column.text("currency"));
    private static final List<Column> VALUE =
            List.of(Column.bigint("total_minor"), Column.bigint("payments"));

    @Override
    public List<Column> keyColumns() {
        return KEY;
    }

    @Override
    public List<Column> valueColumns() {
        return VALUE;
    }

    @Override
    public Object keyColumn(TestKey key, int index) {
        return switch (index) {
            case 0 -> key.merchantId();
            case 1 -> key.day();
            default -> key.currency();
        };
    }

    @Override
    public Object valueColumn(TestTotal value, int index) {
        return index == 0 ? value.totalMinor() : value.payments();
    }

    @Override
    public TestKey readKey(ResultSet row, int firstColumn) throws SQLException {
        return new TestKey(
                row.getString(firstColumn),
                row.getObject(firstColumn + 1, LocalDate.class),
                row.getString(firstColumn + 2));
    }
}
