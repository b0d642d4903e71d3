package io.effonce.sink.internal;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import io.effonce.sink.store.PostgresStoreConfig;
import io.effonce.sink.store.PostgresTotalsStore;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.time.LocalDate;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The start protocol's contract on PostgreSQL. */
@ExtendWith(PostgresExtension.class)
class PostgresStartProtocolITCase extends StartProtocolContract<MerchantDayKey, DailyTotal> {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    private TotalsTable table;
    private PostgresStoreConfig config;

    @BeforeEach
    void emptyTables(PostgresEndpoint db) {
        table = new TotalsTable(db);
        table.truncate();
        config =
                PostgresStoreConfig.of(
                        db.jdbcUrl(), db.user(), db.password(), "merchant_daily_totals");
    }

    @Override
    FlushableSink<MerchantDayKey, DailyTotal> newRun() {
        return FlushableSink.<MerchantDayKey, DailyTotal>builder()
                .store(PostgresTotalsStore.factory(config))
                .valueType(TypeInformation.of(DailyTotal.class))
                .build();
    }

    @Override
    TypeInformation<MerchantDayKey> keyType() {
        return TypeInformation.of(MerchantDayKey.class);
    }

    @Override
    MerchantDayKey key(String name) {
        return new MerchantDayKey(name, DAY, "EUR");
    }

    @Override
    DailyTotal value(long amount) {
        return new DailyTotal(amount, 1);
    }

    @Override
    Map<MerchantDayKey, Long> live() {
        return table.totals();
    }

    @Override
    Map<MerchantDayKey, Long> committed() {
        return table.committed();
    }

    @Override
    String dump() {
        return table.dump();
    }
}
