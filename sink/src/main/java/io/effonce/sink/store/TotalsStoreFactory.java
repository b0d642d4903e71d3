package io.effonce.sink.store;

import java.io.Serializable;

/**
 * Creates the store in the task that writes, so the job graph carries only its settings, never a
 * connection or a password.
 */
@FunctionalInterface
public interface TotalsStoreFactory<K, V> extends Serializable {

    TotalsStore<K, V> create();
}
