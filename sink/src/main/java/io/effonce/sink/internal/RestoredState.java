package io.effonce.sink.internal;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** The sink's restored keyed state, as the start protocol reads it. */
interface RestoredState<K, V> {

    /** Calls {@code action} once per key the state holds, with its value. */
    void forEach(BiConsumer<K, V> action);

    /**
     * Calls {@code action} once per key deleted within the retention that holds no value since: a
     * database that went back in time may have brought its row back.
     */
    void forEachDeleted(Consumer<K> action);

    /** The key's value in state, {@code null} when the state does not hold it. */
    V valueOf(K key);
}
