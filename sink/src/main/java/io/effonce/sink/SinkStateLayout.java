package io.effonce.sink;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The sink's state as a savepoint holds it: names, types and time to live — the savepoint format.
 * The operator registers its state from here, and so does a savepoint migration that reads or
 * rewrites it with Flink's State Processor API (a job whose key or value class changed its name).
 *
 * <p>The promise: a savepoint of any release restores into every later one. A name here never
 * changes; a new state gets a new name, and a release that cannot read an older layout says so in
 * the CHANGELOG, with the migration that rewrites it.
 */
@PublicEvolving
public final class SinkStateLayout {

    /** Keyed: each live key's last value. */
    public static final String LAST_VALUE_STATE = "flushable-sink-last-value";

    /** Keyed: a retired key's final value, for {@code sink.retired-retention}. */
    public static final String RETIRED_VALUE_STATE = "flushable-sink-retired-value";

    /** Keyed: a deleted key's tombstone, for {@code sink.retired-retention}. */
    public static final String DELETED_STATE = "flushable-sink-deleted";

    /** Union operator state: the runs the state descends from, one entry each. */
    public static final String LINEAGE_STATE = "flushable-sink-lineage";

    private SinkStateLayout() {}

    public static <V> ValueStateDescriptor<V> lastValue(TypeInformation<V> valueType) {
        return new ValueStateDescriptor<>(LAST_VALUE_STATE, valueType);
    }

    /** Kept for {@code retention}; none is kept when it is zero. */
    public static <V> ValueStateDescriptor<V> retiredValue(
            TypeInformation<V> valueType, Duration retention) {
        return retained(new ValueStateDescriptor<>(RETIRED_VALUE_STATE, valueType), retention);
    }

    /** Kept for {@code retention}; none is kept when it is zero. */
    public static ValueStateDescriptor<Boolean> deleted(Duration retention) {
        return retained(new ValueStateDescriptor<>(DELETED_STATE, Types.BOOLEAN), retention);
    }

    public static ListStateDescriptor<String> lineage() {
        return new ListStateDescriptor<>(LINEAGE_STATE, Types.STRING);
    }

    /**
     * Retained state expires by processing time: the retention covers how far back a database can
     * lose acknowledged writes, which is wall-clock time.
     */
    private static <T extends StateDescriptor<?, ?>> T retained(T descriptor, Duration retention) {
        if (!retention.isZero()) {
            descriptor.enableTimeToLive(
                    StateTtlConfig.newBuilder(retention)
                            .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                            .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                            .build());
        }
        return descriptor;
    }
}
