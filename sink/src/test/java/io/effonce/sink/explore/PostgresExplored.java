package io.effonce.sink.explore;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.testutils.CuttingDriver;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.SinkDatabaseRollback;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** The PostgreSQL store, its tables emptied before every explored history. */
final class PostgresExplored implements ExploredStore<TestKey, TestTotal> {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    private final TotalsTable<TestKey> table;
    private final PostgresStoreConfig config;
    private final PostgresEndpoint db;

    PostgresExplored(PostgresEndpoint db) {
        this.db = db;
        this.table = new TotalsTable<>(db, TestRows.MAPPING);
        // Through the cutting driver, with quick retries: a drawn cut exercises the session's
        // retry of a transaction whose COMMIT it did not hear of, and its giving up.
        this.config =
                PostgresStoreConfig.of(
                                CuttingDriver.url(db.jdbcUrl()),
                                db.user(),
                                db.password(),
                                "merchant_daily_totals")
                        .withRetries(2, Duration.ofMillis(1));
    }

    @Override
    public boolean cutsAtItsConnection() {
        return true;
    }

    @Override
    public void truncate() {
        table.truncate();
    }

    @Override
    public SinkStoreFactory<TestKey, TestTotal> stores() {
        return PostgresStores.deployed(config, TestRows.MAPPING);
    }

    @Override
    public Optional<DatabaseCopy> copyToGoBackTo() {
        SinkDatabaseRollback copy = SinkDatabaseRollback.copy(db);
        return Optional.of(
                new DatabaseCopy() {
                    @Override
                    public void putBack() {
                        copy.restore();
                    }

                    @Override
                    public void discard() {
                        copy.discard();
                    }
                });
    }

    @Override
    public TypeInformation<TestKey> keyType() {
        return TypeInformation.of(TestKey.class);
    }

    @Override
    public TypeInformation<TestTotal> valueType() {
        return TypeInformation.of(TestTotal.class);
    }

    @Override
    public TestKey key(String name) {
        return new TestKey(name, DAY, "EUR");
    }

    @Override
    public TestTotal value(long amount) {
        return new TestTotal(amount, 1);
    }

    @Override
    public Map<TestKey, Long> live() {
        return table.totals();
    }

    @Override
    public Map<TestKey, Long> committed() {
        return table.committed();
    }

    @Override
    public Map<TestKey, Long> committedCheckpoints() {
        return table.committedCheckpoints();
    }
}
