package io.effonce.sink.internal.postgres;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.RowMapping;
import io.effonce.sink.SinkStoreFactory;

/**
 * A store factory whose stores never check that the database still holds what it acknowledged: for
 * the tests that show what that check is for.
 */
public final class WithoutLostWriteCheck {

    private WithoutLostWriteCheck() {}

    public static <K, V> SinkStoreFactory<K, V> factory(
            PostgresStoreConfig config, RowMapping<K, V> mapping) {
        return new PostgresStoreFactory<>(
                config, mapping, false, PostgresStoreFactory.Tables.DEPLOYED);
    }
}
