package io.effonce.sink.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Upserts and deletes waiting to be written, one per key: a newer change replaces the older one, so
 * a hot key costs one row per batch however often it changes. A deleted key is held with value
 * {@code null} and drained as a {@linkplain StoredRow#tombstone tombstone}.
 */
final class WriteBuffer<K, V> {

    private final Map<K, V> latest = new LinkedHashMap<>();

    void put(K key, V value) {
        latest.put(key, value);
    }

    void delete(K key) {
        latest.put(key, null);
    }

    int size() {
        return latest.size();
    }

    boolean isEmpty() {
        return latest.isEmpty();
    }

    /**
     * Takes everything out as rows (and tombstones) tagged {@code tag}; the buffer is empty
     * afterwards.
     */
    List<StoredRow<K, V>> drain(long tag, ToIntFunction<K> keyGroupOf) {
        List<StoredRow<K, V>> rows = new ArrayList<>(latest.size());
        for (Map.Entry<K, V> e : latest.entrySet()) {
            rows.add(
                    new StoredRow<>(
                            e.getKey(), e.getValue(), keyGroupOf.applyAsInt(e.getKey()), tag));
        }
        latest.clear();
        return rows;
    }
}
