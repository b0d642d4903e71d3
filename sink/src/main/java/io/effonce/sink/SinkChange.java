package io.effonce.sink;

import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One change for the flushable sink: an {@code Upsert} sets {@code key} to the absolute {@code
 * value}; a {@code Retire} (value {@code null}) drops the key from the sink's state and leaves its
 * last row in the table as the final value.
 *
 * <p>A record with public fields, so Flink serializes it as a POJO once the caller gives the
 * concrete key and value types.
 */
@PublicEvolving
public record SinkChange<K, V>(K key, V value) {

    public SinkChange {
        Objects.requireNonNull(key, "key");
    }

    public static <K, V> SinkChange<K, V> upsert(K key, V value) {
        return new SinkChange<>(key, Objects.requireNonNull(value, "value"));
    }

    public static <K, V> SinkChange<K, V> retire(K key) {
        return new SinkChange<>(key, null);
    }

    public boolean isRetire() {
        return value == null;
    }
}
