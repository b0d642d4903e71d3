package io.effonce.job.migrate;

import io.effonce.dedup.DedupOptions;
import io.effonce.dedup.LateCopy;
import io.effonce.dedup.Lateness;
import java.time.Duration;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The dedup stage of the two-stage layout (0.1.0, and 0.2.x with {@code pipeline.layout}), kept for
 * what reads and builds its savepoints: the migration ({@link SeenIdsReader}) and the tests'
 * fixtures of old releases. The job applies the same rules ({@code io.effonce.dedup}) in its
 * merchant stage; no graph of it runs this operator.
 *
 * <pre>{@code
 * EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().configure(conf).build();
 * SingleOutputStreamOperator<Change> unique = dedup.apply(changes.keyBy(Change::eventId));
 * DataStream<LateCopy<Change>> late = EventTimeDedup.lateCopies(unique);
 * }</pre>
 *
 * <p>The stream must carry event-time timestamps and watermarks. What the operator guarantees is
 * described on {@link EventTimeDedupOperator}. Instances are immutable and validated by {@link
 * Builder#build()}.
 */
public final class EventTimeDedup<T> {

    /** Default operator uid, so savepoints map the state back to the operator. */
    public static final String DEFAULT_UID = "effonce-dedup";

    private final Lateness lateness;
    private final String uid;
    private final String name;

    private EventTimeDedup(Lateness lateness, String uid, String name) {
        this.lateness = lateness;
        this.uid = uid;
        this.name = name;
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /** The late copies rejected by a dedup operator returned from {@link #apply}. */
    public static <T> DataStream<LateCopy<T>> lateCopies(SingleOutputStreamOperator<T> deduped) {
        return deduped.getSideOutput(LateCopy.tag(deduped.getType()));
    }

    /**
     * Adds the dedup operator to a stream keyed by event ID and returns the stream of first copies;
     * late copies are on {@link #lateCopies}.
     */
    public <K> SingleOutputStreamOperator<T> apply(KeyedStream<T, K> keyedByEventId) {
        TypeInformation<T> type = keyedByEventId.getType();
        return keyedByEventId
                .transform(name, type, this.<K>createOperator(type))
                .uid(uid)
                .name(name);
    }

    /** A new operator with these settings, for {@link #apply} and operator test harnesses. */
    public <K> EventTimeDedupOperator<K, T> createOperator(TypeInformation<T> recordType) {
        return new EventTimeDedupOperator<>(lateness, LateCopy.tag(recordType));
    }

    /** The rules' settings. */
    public Lateness lateness() {
        return lateness;
    }

    /** Builds an {@link EventTimeDedup}; {@link #build()} checks the settings. */
    public static final class Builder<T> {
        private Duration horizon = DedupOptions.HORIZON.defaultValue();
        private boolean watermarkFloor = DedupOptions.WATERMARK_FLOOR_ENABLED.defaultValue();
        @Nullable private Duration stateTtl;
        private String uid = DEFAULT_UID;
        private String name = "Event-time dedup";

        private Builder() {}

        /** Reads {@link DedupOptions} that are set in {@code config}; others keep their value. */
        public Builder<T> configure(ReadableConfig config) {
            config.getOptional(DedupOptions.HORIZON).ifPresent(this::horizon);
            config.getOptional(DedupOptions.WATERMARK_FLOOR_ENABLED)
                    .ifPresent(this::watermarkFloor);
            config.getOptional(DedupOptions.STATE_TTL).ifPresent(this::stateTtl);
            return this;
        }

        /** See {@link DedupOptions#HORIZON}. */
        public Builder<T> horizon(Duration horizon) {
            this.horizon = horizon;
            return this;
        }

        /** See {@link DedupOptions#WATERMARK_FLOOR_ENABLED}. */
        public Builder<T> watermarkFloor(boolean enabled) {
            this.watermarkFloor = enabled;
            return this;
        }

        /** See {@link DedupOptions#STATE_TTL}; {@code null} switches it off. */
        public Builder<T> stateTtl(@Nullable Duration ttl) {
            this.stateTtl = ttl;
            return this;
        }

        /** Operator uid; keep it stable across job versions to restore from savepoints. */
        public Builder<T> uid(String uid) {
            this.uid = uid;
            return this;
        }

        public Builder<T> name(String name) {
            this.name = name;
            return this;
        }

        public EventTimeDedup<T> build() {
            Lateness lateness = new Lateness(horizon, watermarkFloor, stateTtl);
            if (uid == null || uid.isBlank()) {
                throw new IllegalArgumentException("uid must not be blank");
            }
            Objects.requireNonNull(name, "name must not be null");
            return new EventTimeDedup<>(lateness, uid, name);
        }
    }
}
