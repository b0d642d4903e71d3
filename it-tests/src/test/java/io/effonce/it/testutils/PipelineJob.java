package io.effonce.it.testutils;

import io.effonce.job.DailyTotal;
import io.effonce.job.JobOptions;
import io.effonce.job.LedgerPipeline;
import io.effonce.job.LedgerTotalsJobAccess;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.MerchantDayRows;
import io.effonce.job.sidetables.SideTables;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.testing.PostgresEndpoint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The real job graph ({@link LedgerPipeline}) over the relay's Kafka topic and the test's
 * PostgreSQL, submitted to the MiniCluster of a {@code MiniClusterExtension}: RocksDB, exactly-once
 * checkpoints, quick restarts (or none). A test may wrap the totals store to inject a fault.
 */
public final class PipelineJob {

    private final PostgresEndpoint db;
    private final Configuration job = new Configuration();
    private final Configuration cluster = new Configuration();
    private int parallelism = 2;
    private Duration checkpointInterval = Duration.ofMillis(500);
    private Function<PostgresStoreConfig, SinkStoreFactory<MerchantDayKey, DailyTotal>> totals =
            c -> PostgresStores.deployed(c, MerchantDayRows.MAPPING);

    private PipelineJob(PostgresEndpoint db, String kafka, String topic, Path checkpoints) {
        this.db = db;
        job.set(JobOptions.KAFKA_BOOTSTRAP, kafka);
        job.set(JobOptions.TOPIC, List.of(topic.split(";")));
        job.set(JobOptions.GROUP_ID, topic);
        cluster.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        cluster.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        restarts(true);
    }

    /** The job over {@code topic}, checkpoints in {@code checkpoints}. */
    public static PipelineJob over(
            PostgresEndpoint db, String kafka, String topic, Path checkpoints) {
        return new PipelineJob(db, kafka, topic, checkpoints);
    }

    /**
     * Sets a job option ({@code JobOptions}, {@code DedupOptions}, {@code FlushableSinkOptions}).
     */
    public <T> PipelineJob set(ConfigOption<T> option, T value) {
        job.set(option, value);
        return this;
    }

    public PipelineJob parallelism(int p) {
        parallelism = p;
        return this;
    }

    public PipelineJob checkpointInterval(Duration interval) {
        checkpointInterval = interval;
        return this;
    }

    /** Quick fixed-delay restarts, or none: then any failure fails the job (and the test). */
    public PipelineJob restarts(boolean on) {
        if (on) {
            cluster.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            cluster.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1_000);
            cluster.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    Duration.ofMillis(200));
        } else {
            cluster.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        return this;
    }

    /** Restores from this savepoint or retained checkpoint. */
    public PipelineJob fromSavepoint(String path) {
        cluster.set(StateRecoveryOptions.SAVEPOINT_PATH, path);
        return this;
    }

    /** Wraps the PostgreSQL totals store, e.g. with a fault ({@link StoreFaults}). */
    public PipelineJob totals(
            Function<PostgresStoreConfig, SinkStoreFactory<MerchantDayKey, DailyTotal>> store) {
        this.totals = store;
        return this;
    }

    /** The sink's store settings for this test's database. */
    public PostgresStoreConfig storeConfig() {
        return PostgresStoreConfig.builder()
                .url(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .table("merchant_daily_totals")
                .build()
                .toBuilder()
                .maxRetries(5)
                .retryBackoff(Duration.ofMillis(200))
                .build();
    }

    /** Submits the job and returns at once. */
    public JobClient start(String name) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(cluster);
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointInterval.toMillis());
        PostgresStoreConfig store = storeConfig();
        LedgerPipeline.build(
                env,
                job,
                new LedgerPipeline.Endpoints(
                        LedgerTotalsJobAccess.kafkaSource(job).build(),
                        totals.apply(store),
                        SideTables.lateEvents(store),
                        SideTables.deadLetters(store)));
        return env.executeAsync(name);
    }
}
