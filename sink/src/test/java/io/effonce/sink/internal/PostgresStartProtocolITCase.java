package io.effonce.sink.internal;

import io.effonce.sink.testutils.PostgresStoreUnderTest;
import io.effonce.sink.testutils.StoreUnderTest;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/** The start protocol's contracts on PostgreSQL. */
@ExtendWith(PostgresExtension.class)
class PostgresStartProtocolITCase {

    private PostgresStoreUnderTest store;

    @BeforeEach
    void emptyTables(PostgresEndpoint db) {
        store = new PostgresStoreUnderTest(db);
        store.truncate();
    }

    @Nested
    class Start extends StartProtocolContract<TestKey, TestTotal> {
        @Override
        StoreUnderTest<TestKey, TestTotal> store() {
            return store;
        }
    }

    @Nested
    class RestoreProof extends RestoreProofContract<TestKey, TestTotal> {
        @Override
        StoreUnderTest<TestKey, TestTotal> store() {
            return store;
        }
    }

    @Nested
    class UnprovenRestore extends UnprovenRestoreContract<TestKey, TestTotal> {
        @Override
        StoreUnderTest<TestKey, TestTotal> store() {
            return store;
        }
    }

    @Nested
    class SecondDeployment extends SecondDeploymentContract<TestKey, TestTotal> {
        @Override
        StoreUnderTest<TestKey, TestTotal> store() {
            return store;
        }
    }
}
