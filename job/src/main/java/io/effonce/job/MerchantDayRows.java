package io.effonce.job;

import io.effonce.sink.Column;
import io.effonce.sink.RowMapping;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.List;

/**
 * The merchant-day totals as rows of {@code merchant_daily_totals} and its staged and committed
 * tables (deploy/sql/sink.sql): the key is (merchant_id, day, currency), the value (total_minor,
 * payments).
 */
public enum MerchantDayRows implements RowMapping<MerchantDayKey, DailyTotal> {
    MAPPING;

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
    public Object keyColumn(MerchantDayKey key, int index) {
        return switch (index) {
            case 0 -> key.merchantId();
            case 1 -> key.day();
            case 2 -> key.currency();
            default -> throw new IndexOutOfBoundsException(index);
        };
    }

    @Override
    public Object valueColumn(DailyTotal value, int index) {
        return switch (index) {
            case 0 -> value.totalMinor();
            case 1 -> value.payments();
            default -> throw new IndexOutOfBoundsException(index);
        };
    }

    @Override
    public MerchantDayKey readKey(ResultSet row, int firstColumn) throws SQLException {
        return new MerchantDayKey(
                row.getString(firstColumn),
                row.getObject(firstColumn + 1, LocalDate.class),
                row.getString(firstColumn + 2));
    }
}
