package io.effonce.sink.explore;

import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import io.effonce.sink.store.PostgresStoreConfig;
import io.effonce.sink.store.PostgresTotalsStore;
import io.effonce.sink.store.TotalsStoreFactory;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import java.time.LocalDate;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** The PostgreSQL store, its tables emptied before every explored history. */
final class PostgresExplored implements ExploredStore<MerchantDayKey, DailyTotal> {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    private final TotalsTable table;
    private final PostgresStoreConfig config;

    PostgresExplored(PostgresEndpoint db) {
        this.table = new TotalsTable(db);
        this.config =
                PostgresStoreConfig.of(
                        db.jdbcUrl(), db.user(), db.password(), "merchant_daily_totals");
    }

    @Override
    public void truncate() {
        table.truncate();
    }

    @Override
    public TotalsStoreFactory<MerchantDayKey, DailyTotal> stores() {
        return PostgresTotalsStore.factory(config);
    }

    @Override
    public TypeInformation<MerchantDayKey> keyType() {
        return TypeInformation.of(MerchantDayKey.class);
    }

    @Override
    public TypeInformation<DailyTotal> valueType() {
        return TypeInformation.of(DailyTotal.class);
    }

    @Override
    public MerchantDayKey key(String name) {
        return new MerchantDayKey(name, DAY, "EUR");
    }

    @Override
    public DailyTotal value(long amount) {
        return new DailyTotal(amount, 1);
    }

    @Override
    public Map<MerchantDayKey, Long> live() {
        return table.totals();
    }

    @Override
    public Map<MerchantDayKey, Long> committed() {
        return table.committed();
    }

    @Override
    public Map<MerchantDayKey, Long> committedCheckpoints() {
        return table.committedCheckpoints();
    }
}
