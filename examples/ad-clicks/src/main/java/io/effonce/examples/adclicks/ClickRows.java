package io.effonce.examples.adclicks;

import io.effonce.sink.Column;
import io.effonce.sink.ColumnType;
import io.effonce.sink.RowMapping;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;

/** The clicks table's columns: {@code campaign_id}, {@code hour} (the key) and {@code clicks}. */
public enum ClickRows implements RowMapping<CampaignHour, Long> {
    MAPPING;

    @Override
    public List<Column> keyColumns() {
        return List.of(
                new Column("campaign_id", ColumnType.TEXT),
                new Column("hour", ColumnType.TIMESTAMPTZ));
    }

    @Override
    public List<Column> valueColumns() {
        return List.of(new Column("clicks", ColumnType.BIGINT));
    }

    @Override
    public Object keyColumn(CampaignHour key, int index) {
        return index == 0 ? key.campaignId() : key.hour();
    }

    @Override
    public Object valueColumn(Long clicks, int index) {
        return clicks;
    }

    @Override
    public CampaignHour readKey(ResultSet row, int first) throws SQLException {
        return new CampaignHour(
                row.getString(first),
                row.getObject(first + 1, OffsetDateTime.class).toInstant().toEpochMilli());
    }
}
