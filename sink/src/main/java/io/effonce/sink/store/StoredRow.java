package io.effonce.sink.store;

/**
 * One absolute write: {@code key = value}, tagged with the last checkpoint barrier its writer had
 * passed and with the key's Flink key group (which the flush and the fence work by).
 */
public record StoredRow<K, V>(K key, V value, int keyGroup, long barrierTag) {}
