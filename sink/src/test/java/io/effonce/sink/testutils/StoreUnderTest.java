package io.effonce.sink.testutils;

import io.effonce.sink.SinkStoreFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * A store the sink's store-level tests run against (the start protocol's contracts, the takeover
 * exploration), with its keys, values and tables in amounts.
 */
public interface StoreUnderTest<K, V> {

    /** Empties every table the sink keeps, before each explored history. */
    void truncate();

    SinkStoreFactory<K, V> stores();

    /**
     * Whether the stores connect through {@code CuttingDriver}, so a drawn cut hits their COMMIT
     * and their session retries; otherwise the cut is played at the store call.
     */
    default boolean cutsAtItsConnection() {
        return false;
    }

    /**
     * Copies every table and sequence the sink keeps, in one snapshot, to go back to later. Empty
     * where the store cannot go back in time.
     */
    default Optional<DatabaseCopy> copyToGoBackTo() {
        return Optional.empty();
    }

    /** A copy of the sink's database, as an asynchronous standby or a backup holds it. */
    interface DatabaseCopy {

        /** Puts the copy back and ends the sink's sessions, as a promoted standby does. */
        void putBack();

        /**
         * Puts back the live, staged and committed rows and the writers' counts only, keeping the
         * progress and the fences as they are now: an operator's partial restore.
         */
        void putBackRowsAndWriters();

        void discard();
    }

    /**
     * Time passes for the fence owners' leases ({@code sink_fences.owner_seen_at}): each was last
     * seen {@code by} longer ago, as after a run that died without closing.
     */
    void ageLeases(Duration by);

    TypeInformation<K> keyType();

    TypeInformation<V> valueType();

    K key(String name);

    V value(long amount);

    /** Live amounts per key. */
    Map<K, Long> live();

    /** Committed amounts per key. */
    Map<K, Long> committed();

    /** The checkpoint each committed value is from. */
    Map<K, Long> committedCheckpoints();

    /** Everything the store keeps, for "changed nothing" assertions. */
    String dump();
}
