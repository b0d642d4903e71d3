package io.effonce.sink.testutils;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.SinkDatabaseRollback;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** The PostgreSQL store, through {@code CuttingDriver}; {@link #truncate} empties its tables. */
public final class PostgresStoreUnderTest implements StoreUnderTest<TestKey, TestTotal> {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    private final TotalsTable<TestKey> table;
    private final PostgresStoreConfig config;
    private final PostgresEndpoint db;

    public PostgresStoreUnderTest(PostgresEndpoint db) {
        this.db = db;
        this.table = new TotalsTable<>(db, TestRows.MAPPING);
        // Through the cutting driver, with quick retries: a drawn cut exercises the session's
        // retry of a transaction whose COMMIT it did not hear of, and its giving up.
        this.config =
                PostgresStoreConfig.builder()
                        .url(CuttingDriver.url(db.jdbcUrl()))
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build()
                        .toBuilder()
                        .maxRetries(2)
                        .retryBackoff(Duration.ofMillis(1))
                        .build();
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
                    public void putBackRowsAndWriters() {
                        copy.restoreOnly(
                                List.of(
                                        "merchant_daily_totals",
                                        "merchant_daily_totals_staged",
                                        "merchant_daily_totals_committed",
                                        "sink_writers"));
                    }

                    @Override
                    public void discard() {
                        copy.discard();
                    }
                });
    }

    @Override
    public void ageLeases(Duration by) {
        table.execute(
                "UPDATE sink_fences SET owner_seen_at = owner_seen_at - interval '"
                        + by.toSeconds()
                        + " seconds'");
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

    @Override
    public String dump() {
        return table.dump();
    }
}
