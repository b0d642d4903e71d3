package io.effonce.sink;

import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One change for the flushable sink: an {@linkplain #upsert upsert} sets {@code key} to the
 * absolute {@code value}; a {@linkplain #retire retire} drops the key from the sink's state and
 * leaves its last row in the table as the final value; a {@linkplain #delete delete} removes the
 * key's row from the live and (at the next checkpoint) the committed table, and the key from the
 * sink's state.
 *
 * <p>A record, so Flink serializes it as a POJO once the caller gives the concrete key and value
 * types.
 */
@PublicEvolving
public record SinkChange<K, V>(K key, V value, boolean deleted) {

    public SinkChange {
        Objects.requireNonNull(key, "key");
        if (deleted && value != null) {
            throw new IllegalArgumentException("A delete carries no value");
        }
    }

    /** An upsert ({@code value} not null) or a retire ({@code value} null). */
    public SinkChange(K key, V value) {
        this(key, value, false);
    }

    public static <K, V> SinkChange<K, V> upsert(K key, V value) {
        return new SinkChange<>(key, Objects.requireNonNull(value, "value"));
    }

    public static <K, V> SinkChange<K, V> retire(K key) {
        return new SinkChange<>(key, null);
    }

    /**
     * Removes {@code key}. After a restore the row is as restored state has it: a delete before the
     * restored checkpoint stays, a delete the restore erased is undone until the replay deletes it
     * again.
     */
    public static <K, V> SinkChange<K, V> delete(K key) {
        return new SinkChange<>(key, null, true);
    }

    public boolean isRetire() {
        return value == null && !deleted;
    }

    public boolean isDelete() {
        return deleted;
    }
}
