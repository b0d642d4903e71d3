package io.effonce.sink.internal;

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
     * A key's last value since the last barrier ({@code null}: none since), whether it retired
     * after it, and whether its last change deleted it. A key can change and retire between two
     * barriers: its state goes, its last value is still its final committed one.
     */
    private record Change<V>(V last, boolean retired, boolean deleted) {}

    private final Map<K, Change<V>> changes = new HashMap<>();

    void changed(K key, V value) {
        changes.put(key, new Change<>(value, false, false));
    }

    /** The key retired: its state goes; the row stays as its final value. */
    void retired(K key) {
        changes.compute(
                key,
                (k, was) ->
                        was == null
                                ? new Change<>(null, true, false)
                                : new Change<>(was.last(), true, was.deleted()));
    }

    /** The key was deleted: its state goes, and so do its rows. */
    void deleted(K key) {
        changes.put(key, new Change<>(null, false, true));
    }

    /** What a barrier does to one changed key's state. */
    interface StateUpdate<K, V> {
        /**
         * {@code last}: the key's last value since the previous barrier ({@code null}: none since,
         * only possible when {@code retired} or {@code deleted}); {@code retired}: its live state
         * goes; {@code deleted}: all of its state goes.
         */
        void apply(K key, V last, boolean retired, boolean deleted);
    }

    /** For each changed key, its last value and whether it retired or was deleted. */
    void forEachState(StateUpdate<K, V> update) {
        changes.forEach((key, c) -> update.apply(key, c.last(), c.retired(), c.deleted()));
    }

    /**
     * The values the changed keys have at barrier {@code checkpointId}, to be committed when the
     * checkpoint completes; a deleted key stages a tombstone. A key retired with no change since
     * the last barrier stages nothing: its committed row stays as its final value, as in the live
     * table.
     */
    List<StoredRow<K, V>> staged(long checkpointId, ToIntFunction<K> keyGroupOf) {
        List<StoredRow<K, V>> values = new ArrayList<>(changes.size());
        changes.forEach(
                (key, c) -> {
                    int keyGroup = keyGroupOf.applyAsInt(key);
                    if (c.deleted()) {
                        values.add(StoredRow.tombstone(key, keyGroup, checkpointId));
                    } else if (c.last() != null) {
                        values.add(new StoredRow<>(key, c.last(), keyGroup, checkpointId));
                    }
                });
        return values;
    }

    void clear() {
        changes.clear();
    }
}
