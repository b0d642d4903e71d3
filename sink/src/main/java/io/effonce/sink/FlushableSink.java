package io.effonce.sink;

import io.effonce.sink.internal.DeploymentOrder;
import io.effonce.sink.internal.FlushableSinkOperator;
import io.effonce.sink.internal.SinkSettings;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The flushable sink: applied to a stream of {@link SinkChange}s keyed by the change's key, it
 * writes each key's latest value as an absolute SET tagged with the last checkpoint barrier, and
 * after every restore or rescale removes what the erased run wrote. Build it with {@link
 * #builder()}.
 */
@PublicEvolving
public final class FlushableSink<K, V> {

    private final SinkStoreFactory<K, V> storeFactory;
    private final TypeInformation<V> valueType;
    private final SinkSettings settings;

    /**
     * Made once, when the sink joins the job's graph ({@link #createOperator}), and carried in it:
     * every restart of the job, and a JobManager failover that recovers the graph, runs with the
     * same id; a new deployment, even under the same job id, gets a new one, numbered by the store
     * when it can be ({@link DeploymentOrder}). Not in {@link Builder#build()}, which touches no
     * database.
     */
    private String runId;

    private FlushableSink(
            SinkStoreFactory<K, V> storeFactory,
            TypeInformation<V> valueType,
            SinkSettings settings) {
        this.storeFactory = storeFactory;
        this.valueType = valueType;
        this.settings = settings;
    }

    /** The run's id, numbered by the store the first time the sink joins a graph. */
    private synchronized String runId() {
        if (runId == null) {
            UUID unique = UUID.randomUUID();
            OptionalLong number = storeFactory.numberDeployment();
            runId =
                    number.isPresent()
                            ? DeploymentOrder.runId(number.getAsLong(), unique)
                            : unique.toString();
        }
        return runId;
    }

    public static <K, V> Builder<K, V> builder() {
        return new Builder<>();
    }

    /**
     * The operator, for tests and for callers that wire it themselves. The first call numbers the
     * deployment at the store (and creates the tables where the store is asked to); every operator
     * of this sink carries the same run.
     */
    @Internal
    public FlushableSinkOperator<K, V> createOperator() {
        return new FlushableSinkOperator<>(storeFactory, valueType, settings, runId());
    }

    /**
     * Keys {@code changes} by their key and adds the sink with a stable uid, so savepoints find its
     * state.
     */
    public SingleOutputStreamOperator<Void> writeFrom(
            DataStream<SinkChange<K, V>> changes, TypeInformation<K> keyType, String uid) {
        return add(changes.keyBy(SinkChange::key, keyType), uid);
    }

    /**
     * Adds the sink right behind an operator that is keyed by the same key, with the same
     * parallelism and maximum parallelism, and emits each change from the subtask that owns its
     * key: no shuffle, the sink runs chained in the same task. A change arriving in a subtask that
     * does not own its key group fails the write (the fence checks every row's key group).
     */
    public SingleOutputStreamOperator<Void> writeFromSameKeyGroups(
            DataStream<SinkChange<K, V>> changes, TypeInformation<K> keyType, String uid) {
        return add(
                DataStreamUtils.reinterpretAsKeyedStream(changes, SinkChange::key, keyType), uid);
    }

    private SingleOutputStreamOperator<Void> add(
            KeyedStream<SinkChange<K, V>, K> keyed, String uid) {
        return keyed.transform("flushable-sink", Types.VOID, createOperator())
                .uid(uid)
                .name("Flushable sink: " + uid);
    }

    /**
     * Validates settings and builds the sink; every message names the option to fix. Building
     * touches no database: the deployment is numbered when the sink joins the job's graph.
     */
    @PublicEvolving
    public static final class Builder<K, V> {
        private SinkStoreFactory<K, V> storeFactory;
        private TypeInformation<V> valueType;
        private int batchSize = FlushableSinkOptions.BATCH_SIZE.defaultValue();
        private Duration flushInterval = FlushableSinkOptions.FLUSH_INTERVAL.defaultValue();
        private boolean resetOnFreshStart =
                FlushableSinkOptions.RESET_ON_FRESH_START.defaultValue();
        private RestoreFlushPolicy restoreFlush = FlushableSinkOptions.RESTORE_FLUSH.defaultValue();
        private ProgressRule progress = ProgressRule.WATERMARK_ONLY;
        private Duration retiredRetention = FlushableSinkOptions.RETIRED_RETENTION.defaultValue();
        private Duration ownerLease = FlushableSinkOptions.OWNER_LEASE.defaultValue();

        private Builder() {}

        public Builder<K, V> store(SinkStoreFactory<K, V> factory) {
            this.storeFactory = factory;
            return this;
        }

        public Builder<K, V> valueType(TypeInformation<V> type) {
            this.valueType = type;
            return this;
        }

        public Builder<K, V> batchSize(int size) {
            this.batchSize = size;
            return this;
        }

        public Builder<K, V> flushInterval(Duration interval) {
            this.flushInterval = interval;
            return this;
        }

        public Builder<K, V> resetOnFreshStart(boolean reset) {
            this.resetOnFreshStart = reset;
            return this;
        }

        /**
         * What each commit records as its progress ({@code committed_progress}), from the watermark
         * at its barrier: for the ledger's totals, the last final day. Without it only the
         * watermark is recorded.
         */
        public Builder<K, V> progress(ProgressRule rule) {
            this.progress = Objects.requireNonNull(rule, "progress");
            return this;
        }

        /** {@code sink.restore-flush}: which flush runs after a restore. */
        public Builder<K, V> restoreFlush(RestoreFlushPolicy policy) {
            this.restoreFlush = Objects.requireNonNull(policy, "restoreFlush");
            return this;
        }

        /** {@code sink.retired-retention}: how long a retired key's final value stays in state. */
        public Builder<K, V> retiredRetention(Duration retention) {
            this.retiredRetention = retention;
            return this;
        }

        /** {@code sink.owner-lease}: how long a running deployment holds its key groups. */
        public Builder<K, V> ownerLease(Duration lease) {
            this.ownerLease = lease;
            return this;
        }

        /**
         * Reads every {@link FlushableSinkOptions} the sink itself takes from Flink configuration.
         */
        public Builder<K, V> options(ReadableConfig config) {
            this.batchSize = config.get(FlushableSinkOptions.BATCH_SIZE);
            this.flushInterval = config.get(FlushableSinkOptions.FLUSH_INTERVAL);
            this.resetOnFreshStart = config.get(FlushableSinkOptions.RESET_ON_FRESH_START);
            this.restoreFlush = config.get(FlushableSinkOptions.RESTORE_FLUSH);
            this.retiredRetention = config.get(FlushableSinkOptions.RETIRED_RETENTION);
            this.ownerLease = config.get(FlushableSinkOptions.OWNER_LEASE);
            return this;
        }

        public FlushableSink<K, V> build() {
            Objects.requireNonNull(storeFactory, "store(...) is required: where the sink writes");
            Objects.requireNonNull(valueType, "valueType(...) is required: the state's value type");
            if (batchSize < 1 || batchSize > 100_000) {
                throw new IllegalArgumentException(
                        FlushableSinkOptions.BATCH_SIZE.key()
                                + " must be between 1 and 100000, was "
                                + batchSize);
            }
            if (flushInterval == null
                    || flushInterval.isNegative()
                    || flushInterval.isZero()
                    || flushInterval.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException(
                        FlushableSinkOptions.FLUSH_INTERVAL.key()
                                + " must be more than 0 and at most 10 min, was "
                                + flushInterval);
            }
            if (retiredRetention == null || retiredRetention.isNegative()) {
                throw new IllegalArgumentException(
                        FlushableSinkOptions.RETIRED_RETENTION.key()
                                + " must be 0 or more (0 keeps no retired value), was "
                                + retiredRetention);
            }
            if (ownerLease == null || ownerLease.isNegative()) {
                throw new IllegalArgumentException(
                        FlushableSinkOptions.OWNER_LEASE.key()
                                + " must be 0 or more (well above the checkpoint interval), was "
                                + ownerLease);
            }
            return new FlushableSink<>(
                    storeFactory,
                    valueType,
                    new SinkSettings(
                            batchSize,
                            flushInterval,
                            resetOnFreshStart,
                            restoreFlush == RestoreFlushPolicy.FULL,
                            progress,
                            retiredRetention,
                            ownerLease));
        }
    }
}
