package io.effonce.sink.internal;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;

/**
 * One absolute write: {@code key = value}, tagged with the last checkpoint barrier its writer had
 * passed and with the key's Flink key group (which the flush and the fence work by). A {@linkplain
 * #tombstone tombstone} (value {@code null}) deletes the key.
 */
@Internal
public record StoredRow<K, V>(K key, V value, int keyGroup, long barrierTag) {

    /** The deletion of {@code key}, tagged like a write. */
    public static <K, V> StoredRow<K, V> tombstone(K key, int keyGroup, long barrierTag) {
        return new StoredRow<>(key, null, keyGroup, barrierTag);
    }

    public boolean isTombstone() {
        return value == null;
    }

    /**
     * {@code rows} in one pass: under {@code false} the values, under {@code true} the tombstones.
     */
    public static <K, V> Map<Boolean, List<StoredRow<K, V>>> byTombstone(
            List<StoredRow<K, V>> rows) {
        return rows.stream().collect(Collectors.partitioningBy(StoredRow::isTombstone));
    }
}
