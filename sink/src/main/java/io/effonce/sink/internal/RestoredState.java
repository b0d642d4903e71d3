package io.effonce.sink.internal;

import java.util.function.BiConsumer;

/** The sink's restored keyed state, as the start protocol reads it. */
interface RestoredState<K, V> {

    /** Calls {@code action} once per key the state holds, with its value. */
    void forEach(BiConsumer<K, V> action);

    /** The key's value in state, {@code null} when the state does not hold it. */
    V valueOf(K key);
}
