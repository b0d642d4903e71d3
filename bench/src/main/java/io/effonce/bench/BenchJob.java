package io.effonce.bench;

import io.effonce.job.JobOptions;
import io.effonce.job.LedgerPipeline;
import io.effonce.job.LedgerTotalsJob;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * One run of a round, alone in a fresh JVM on a local MiniCluster: {@code effonce} (the job),
 * {@code sql} (its Flink SQL equivalent) or {@code sql-minibatch} (the same SQL tuned as Flink's
 * performance tuning guide recommends: mini-batch, two-phase aggregation) or {@code sql-effonce}
 * (the SQL through the effonce-postgres connector), reading the topic from its start and writing
 * totals to PostgreSQL until the benchmark stops the process. All run with the same parallelism,
 * RocksDB and exactly-once checkpoints. The sink's password comes from {@code
 * EFFONCE_SINK_PASSWORD}.
 *
 * <p>Arguments: {@code effonce|sql|sql-minibatch|sql-effonce bootstrap topic jdbcUrl user
 * parallelism checkpointMs}.
 */
public final class BenchJob {

    static final String PASSWORD_ENV = "EFFONCE_SINK_PASSWORD";

    /** The SQL equivalent's totals table, created by the benchmark in the run's database. */
    static final String SQL_TABLE = "sql_daily_totals";

    /** The same through the effonce-postgres connector (its tables: SinkTableDdl's). */
    static final String SQL_EFFONCE_TABLE = "sql_effonce_daily_totals";

    private BenchJob() {}

    public static void main(String[] args) throws Exception {
        String system = args[0];
        String bootstrap = args[1];
        String topic = args[2];
        String jdbcUrl = args[3];
        String user = args[4];
        int parallelism = Integer.parseInt(args[5]);
        long checkpointMs = Long.parseLong(args[6]);

        Configuration config = new Configuration();
        config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        // Cluster settings for both systems alike: -Dflink.<key>=<value> (see --jvm-option).
        System.getProperties()
                .stringPropertyNames()
                .forEach(
                        name -> {
                            if (name.startsWith("flink.")) {
                                config.setString(
                                        name.substring("flink.".length()),
                                        System.getProperty(name));
                            }
                        });
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(parallelism);
        // -Dflink.execution.checkpointing.interval (--job-jvm-option) overrides checkpointMs.
        if (!config.contains(CheckpointingOptions.CHECKPOINTING_INTERVAL)) {
            env.enableCheckpointing(checkpointMs, CheckpointingMode.EXACTLY_ONCE);
        }
        switch (system) {
            case "effonce" -> {
                config.set(JobOptions.KAFKA_BOOTSTRAP, bootstrap);
                config.set(JobOptions.TOPIC, List.of(topic));
                config.set(JobOptions.PG_URL, jdbcUrl);
                config.set(JobOptions.PG_USER, user);
                config.set(JobOptions.PG_PASSWORD_ENV, PASSWORD_ENV);
                LedgerPipeline.build(env, config, LedgerTotalsJob.endpoints(config));
                env.execute("effonce ledger totals (bench)");
            }
            case "sql", "sql-minibatch", "sql-effonce" -> {
                StreamTableEnvironment tables = StreamTableEnvironment.create(env);
                if (system.equals("sql-minibatch")) {
                    SqlEquivalent.MINI_BATCH.forEach(tables.getConfig()::set);
                }
                SqlEquivalent.Sink sink =
                        system.equals("sql-effonce")
                                ? SqlEquivalent.Sink.EFFONCE
                                : SqlEquivalent.Sink.JDBC;
                for (String statement :
                        SqlEquivalent.statements(
                                sink,
                                bootstrap,
                                topic,
                                jdbcUrl,
                                user,
                                System.getenv(PASSWORD_ENV))) {
                    if (statement.startsWith("INSERT")) {
                        tables.executeSql(statement).await();
                    } else {
                        tables.executeSql(statement);
                    }
                }
            }
            default ->
                    throw new IllegalArgumentException(
                            "effonce, sql, sql-minibatch or sql-effonce, not " + system);
        }
    }
}
