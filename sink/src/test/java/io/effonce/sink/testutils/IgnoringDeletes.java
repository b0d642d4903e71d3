package io.effonce.sink.testutils;

import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StoredRow;
import java.util.List;

/**
 * The counterfactual of step 3 of the restore flush (delete the keys restored state lacks): a store
 * whose live deletes do nothing, so a key that only the erased run wrote stays in the table. A rule
 * switched off on the test side, at the store, never by a switch in the sink.
 */
public final class IgnoringDeletes<K, V> extends DelegatingStore<K, V> {

    public IgnoringDeletes(SinkStore<K, V> store) {
        super(store);
    }

    @Override
    public void delete(List<StoredRow<K, V>> tombstones) {
        // the rule off: the flush's deletes do nothing
    }

    /** {@code stores}, each store they create ignoring deletes. */
    public static <K, V> SinkStoreFactory<K, V> over(SinkStoreFactory<K, V> stores) {
        return decorating(stores, IgnoringDeletes::new);
    }
}
