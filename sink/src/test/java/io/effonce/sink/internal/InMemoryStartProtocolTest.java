package io.effonce.sink.internal;

import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import io.effonce.sink.testutils.StoreUnderTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/** The start protocol's contracts on the in-memory store. */
class InMemoryStartProtocolTest {

    private InMemoryStoreUnderTest store;

    @BeforeEach
    void newStore() {
        store = new InMemoryStoreUnderTest();
    }

    @Nested
    class Start extends StartProtocolContract<String, Long> {
        @Override
        StoreUnderTest<String, Long> store() {
            return store;
        }
    }

    @Nested
    class RestoreProof extends RestoreProofContract<String, Long> {
        @Override
        StoreUnderTest<String, Long> store() {
            return store;
        }
    }

    @Nested
    class UnprovenRestore extends UnprovenRestoreContract<String, Long> {
        @Override
        StoreUnderTest<String, Long> store() {
            return store;
        }
    }

    @Nested
    class SecondDeployment extends SecondDeploymentContract<String, Long> {
        @Override
        StoreUnderTest<String, Long> store() {
            return store;
        }
    }
}
