package io.effonce.sink.internal;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.junit.PostgresExtension;
import java.time.LocalDate;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The start protocol's contract on PostgreSQL. */
@ExtendWith(PostgresExtension.class)
class PostgresStartProtocolITCase extends StartProtocolContract<TestKey, TestTotal> {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    private TotalsTable<TestKey> table;
    private PostgresStoreConfig config;
    private PostgresEndpoint db;

    @BeforeEach
    void emptyTables(PostgresEndpoint db) {
        this.db = db;
        table = TotalsTable.emptied(db);
        config = table.config();
    }

    @Override
    SinkStoreFactory<TestKey, TestTotal> stores() {
        return PostgresStores.deployed(config, TestRows.MAPPING);
    }

    @Override
    TypeInformation<TestTotal> valueType() {
        return TypeInformation.of(TestTotal.class);
    }

    @Override
    TypeInformation<TestKey> keyType() {
        return TypeInformation.of(TestKey.class);
    }

    @Override
    TestKey key(String name) {
        return new TestKey(name, DAY, "EUR");
    }

    @Override
    TestTotal value(long amount) {
        return new TestTotal(amount, 1);
    }

    @Override
    Map<TestKey, Long> live() {
        return table.totals();
    }

    @Override
    Map<TestKey, Long> committed() {
        return table.committed();
    }

    @Override
    String dump() {
        return table.dump();
    }

    @Override
    DatabaseCopy copyOfTheDatabase() {
        SinkDatabaseRollback copy = SinkDatabaseRollback.copy(db);
        return copy::restore;
    }
}
