package io.effonce.sink.internal;

import io.effonce.sink.SinkStateLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

/**
 * The sink's keyed state: each live key's last value; and, for {@code sink.retired-retention}, a
 * retired key's final value and a deleted key's tombstone. The retained two exist for one reader,
 * the full flush after a database went back in time: it writes a retired key's final row again and
 * deletes a deleted key's row again, when the copy the database went back to still had them.
 *
 * <p>Written once per changed key at each barrier ({@link #apply}); read only by the start protocol
 * ({@link #restored}). A tombstone is not cleared when its key is set again, which would cost a
 * state access per changed key and barrier: a key with a value is not deleted. It is cleared when
 * its key retires, once per key.
 */
final class SinkKeyedState<K, V> {

    private final KeyedStateBackend<K> backend;
    private final ValueStateDescriptor<V> lastDescriptor;
    private final ValueStateDescriptor<V> retiredDescriptor;
    private final ValueStateDescriptor<Boolean> deletedDescriptor;
    private final ValueState<V> lastValue;

    /** Absent when the retention is 0, as is {@link #deleted}. */
    private final ValueState<V> retiredValue;

    private final ValueState<Boolean> deleted;

    SinkKeyedState(
            KeyedStateStore store,
            KeyedStateBackend<K> backend,
            TypeInformation<V> valueType,
            Duration retention) {
        this.backend = backend;
        this.lastDescriptor = SinkStateLayout.lastValue(valueType);
        this.retiredDescriptor = SinkStateLayout.retiredValue(valueType, retention);
        this.deletedDescriptor = SinkStateLayout.deleted(retention);
        this.lastValue = store.getState(lastDescriptor);
        boolean retains = !retention.isZero();
        this.retiredValue = retains ? store.getState(retiredDescriptor) : null;
        this.deleted = retains ? store.getState(deletedDescriptor) : null;
    }

    /**
     * Writes each changed key's last value; a retired key's live state goes and its final value is
     * kept; a deleted key's values go and its tombstone is kept.
     */
    void apply(ChangesSinceBarrier<K, V> changes) {
        changes.forEachState(
                (key, last, retired, deletedNow) -> {
                    backend.setCurrentKey(key);
                    try {
                        if (deletedNow) {
                            lastValue.clear();
                            if (retiredValue != null) {
                                retiredValue.clear();
                                deleted.update(true);
                            }
                            return;
                        }
                        if (!retired) {
                            lastValue.update(last);
                            return;
                        }
                        V finalValue = last != null ? last : lastValue.value();
                        lastValue.clear();
                        if (retiredValue != null && finalValue != null) {
                            retiredValue.update(finalValue);
                            // An older tombstone must not outlive the final value it would
                            // delete (TTL clocks of two TaskManagers after a rescale differ).
                            deleted.clear();
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
    }

    /**
     * The state as the start protocol reads it: each live key's last value, each retired key's
     * final value while it is retained (a key live again is read from its live state), and each
     * retained tombstone of a key that holds no value.
     */
    RestoredState<K, V> restored() {
        return new RestoredState<>() {
            @Override
            public void forEach(BiConsumer<K, V> action) {
                forEachKey(SinkStateLayout.LAST_VALUE_STATE, lastDescriptor, action);
                if (retiredValue != null) {
                    forEachKey(
                            SinkStateLayout.RETIRED_VALUE_STATE,
                            retiredDescriptor,
                            (key, value) -> {
                                if (valueIn(lastValue, key) == null) {
                                    action.accept(key, value);
                                }
                            });
                }
            }

            @Override
            public void forEachDeleted(Consumer<K> action) {
                if (deleted != null) {
                    forEachKey(
                            SinkStateLayout.DELETED_STATE,
                            deletedDescriptor,
                            (key, mark) -> {
                                if (valueOf(key) == null) {
                                    action.accept(key);
                                }
                            });
                }
            }

            @Override
            public V valueOf(K key) {
                V live = valueIn(lastValue, key);
                return live != null || retiredValue == null ? live : valueIn(retiredValue, key);
            }
        };
    }

    private <T> T valueIn(ValueState<T> state, K key) {
        backend.setCurrentKey(key);
        try {
            return state.value();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private <T> void forEachKey(
            String name, ValueStateDescriptor<T> descriptor, BiConsumer<K, T> action) {
        try {
            backend.applyToAllKeys(
                    VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE,
                    descriptor,
                    (K key, ValueState<T> state) -> {
                        T v = state.value();
                        if (v != null) {
                            action.accept(key, v);
                        }
                    });
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read the sink's restored state " + name, e);
        }
    }
}
