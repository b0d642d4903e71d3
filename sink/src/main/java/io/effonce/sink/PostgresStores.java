package io.effonce.sink;

import io.effonce.sink.internal.postgres.PostgresStoreFactory;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a flushable sink on PostgreSQL writes: a {@link SinkStoreFactory} for {@link
 * io.effonce.sink.FlushableSink.Builder#store}, carrying the config and the row mapping into the
 * job graph; each writing task makes its own store from it.
 */
@PublicEvolving
public final class PostgresStores {

    private PostgresStores() {}

    /**
     * The store of tables deployed beforehand (for the ledger job, deploy/sql/sink.sql), whose key
     * and value columns {@code mapping} gives.
     */
    public static <K, V> SinkStoreFactory<K, V> deployed(
            PostgresStoreConfig config, RowMapping<K, V> mapping) {
        return new PostgresStoreFactory<>(config, mapping, PostgresStoreFactory.Tables.DEPLOYED);
    }

    /**
     * The store of the tables {@link SinkTableDdl} gives for {@code mapping}: with {@code
     * createTables} what they lack is created before the first write (the login must be allowed
     * to); without, a sink whose tables are missing fails once, the script that creates them in its
     * message.
     */
    public static <K, V> SinkStoreFactory<K, V> forMapping(
            PostgresStoreConfig config, RowMapping<K, V> mapping, boolean createTables) {
        return new PostgresStoreFactory<>(
                config,
                mapping,
                createTables
                        ? PostgresStoreFactory.Tables.CREATED
                        : PostgresStoreFactory.Tables.FROM_MAPPING);
    }
}
