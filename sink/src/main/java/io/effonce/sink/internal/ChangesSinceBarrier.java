package io.effonce.sink.internal;

import io.effonce.sink.store.StoredRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Each key a sink subtask changed since the last barrier: written to keyed state once per key
 * before the next barrier (state is only read after a restore, so it only has to be right at a
 * checkpoint), and staged for the committed table.
 */
final class ChangesSinceBarrier<K, V> {

    /**
     * A key's last value since the last barrier ({@code null}: none since), and whether it retired
     * after it. A key can change and retire between two barriers: its state goes, its last value is
     * still its final committed one.
     */
    private record Change<V>(V last, boolean retired) {}

    private final Map<K, Change<V>> changes = new HashMap<>();

    void changed(K key, V value) {
        changes.put(key, new Change<>(value, false));
    }

    /** The key retired: its state goes; the row stays as its final value. */
    void retired(K key) {
        changes.compute(key, (k, was) -> new Change<>(was == null ? null : was.last(), true));
    }

    /** What a barrier does to one changed key's state. */
    interface StateUpdate<K, V> {
        /**
         * {@code last}: the key's last value since the previous barrier ({@code null}: none since,
         * only possible when {@code retired}); {@code retired}: its live state goes.
         */
        void apply(K key, V last, boolean retired);
    }

    /** For each changed key, its last value and whether it retired. */
    void forEachState(StateUpdate<K, V> update) {
        changes.forEach((key, c) -> update.apply(key, c.last(), c.retired()));
    }

    /**
     * The values the changed keys have at barrier {@code checkpointId}, to be committed when the
     * checkpoint completes. A key retired with no change since the last barrier stages nothing: its
     * committed row stays as its final value, as in the live table.
     */
    List<StoredRow<K, V>> staged(long checkpointId, ToIntFunction<K> keyGroupOf) {
        List<StoredRow<K, V>> values = new ArrayList<>(changes.size());
        changes.forEach(
                (key, c) -> {
                    if (c.last() != null) {
                        values.add(
                                new StoredRow<>(
                                        key, c.last(), keyGroupOf.applyAsInt(key), checkpointId));
                    }
                });
        return values;
    }

    void clear() {
        changes.clear();
    }
}
