package io.effonce.sink.store;

import org.apache.flink.annotation.Internal;

/**
 * One absolute write: {@code key = value}, tagged with the last checkpoint barrier its writer had
 * passed and with the key's Flink key group (which the flush and the fence work by).
 */
@Internal
public record StoredRow<K, V>(K key, V value, int keyGroup, long barrierTag) {}
