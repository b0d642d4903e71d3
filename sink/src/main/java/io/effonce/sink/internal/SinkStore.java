package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * The tables the flushable sink writes, as one writer sees them, in three roles: the {@link
 * RangeFence} it takes its key-group range from, the {@link LiveTable} and the {@link
 * CommittedTable}. A store is bound to the range its writer took with {@link #takeOwnership}; every
 * later call acts on that range only and fails with {@link FencedException}, without committing
 * anything, once another writer has taken any of those key groups.
 *
 * <p>The contract tests {@code StartProtocolContract} and {@code RestoreProofContract} (the sink's
 * tests, both run by {@code InMemoryStartProtocolTest} and {@code PostgresStartProtocolITCase})
 * hold every implementation to the same behaviour, and the takeover explorer's properties run both
 * ({@code InMemoryTakeoverPropertiesTest}, {@code PostgresTakeoverPropertiesITCase}).
 */
@Internal
public interface SinkStore<K, V>
        extends RangeFence, LiveTable<K, V>, CommittedTable<K, V>, AutoCloseable {

    /**
     * Resets this writer's key-group range, in one transaction: deletes its live rows (returns how
     * many), its staged and committed values and its progress.
     */
    long deleteAll();

    /** The table's name, for messages. */
    String tableName();

    @Override
    void close();
}
