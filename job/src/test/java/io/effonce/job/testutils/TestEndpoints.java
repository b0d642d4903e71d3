package io.effonce.job.testutils;

import io.effonce.job.LedgerPipeline;
import io.effonce.job.LedgerTotalsJobAccess;
import io.effonce.job.MerchantDayRows;
import io.effonce.job.sidetables.SideTables;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.testing.PostgresEndpoint;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** The job's real endpoints (Kafka source, PostgreSQL sinks) over a test database. */
public final class TestEndpoints {

    private TestEndpoints() {}

    /** The source reads until the job runs out of input at today's end offsets. */
    public static LedgerPipeline.Endpoints bounded(ReadableConfig config, PostgresEndpoint db) {
        return endpoints(config, db, true);
    }

    /**
     * Runs the whole job to the end of today's input, at parallelism 2 with a checkpoint every 500
     * ms and no restarts: any failure fails the caller.
     */
    public static void runBounded(ReadableConfig config, PostgresEndpoint db, String name)
            throws Exception {
        Configuration cluster = new Configuration();
        cluster.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(cluster);
        env.setParallelism(2);
        env.enableCheckpointing(500);
        LedgerPipeline.build(env, config, bounded(config, db));
        env.execute(name);
    }

    /** The source reads until the job is stopped, as in production. */
    public static LedgerPipeline.Endpoints unbounded(ReadableConfig config, PostgresEndpoint db) {
        return endpoints(config, db, false);
    }

    private static LedgerPipeline.Endpoints endpoints(
            ReadableConfig config, PostgresEndpoint db, boolean bounded) {
        PostgresStoreConfig postgres =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build();
        var source = LedgerTotalsJobAccess.kafkaSource(config);
        if (bounded) {
            source.setBounded(OffsetsInitializer.latest());
        }
        return new LedgerPipeline.Endpoints(
                source.build(),
                PostgresStores.deployed(postgres, MerchantDayRows.MAPPING),
                SideTables.lateEvents(postgres),
                SideTables.deadLetters(postgres));
    }
}
