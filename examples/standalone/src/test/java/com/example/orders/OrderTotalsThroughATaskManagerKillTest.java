package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.sink.PostgresStoreConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.CheckpointStatsCounts;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both jobs on a Flink MiniCluster and an embedded PostgreSQL: a TaskManager is killed once the
 * first checkpoint completed, Flink restores it, and the live and the committed table end equal to
 * the totals counted from the orders themselves.
 */
class OrderTotalsThroughATaskManagerKillTest {

    private static final long ORDERS = 6_000;
    private static final long PER_SECOND = 1_000;

    /** Upper bound of each wait: a restore costs seconds, more on a busy machine. */
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    // One slot each: both TaskManagers run a subtask, so the kill costs a restore.
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(1)
                            .build());

    private static EmbeddedPostgres postgres;

    /** TaskManagers killed so far: the MiniCluster numbers them in start order, the dead too. */
    private static int killed;

    @TempDir static Path dir;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        postgres.close();
    }

    @Test
    void theDataStreamJobsTotalsEndExact(@InjectMiniCluster MiniCluster cluster) throws Exception {
        StreamExecutionEnvironment env = environment();
        OrderTotalsJob.build(env, store("customer_totals"), ORDERS, PER_SECOND);
        JobClient job = env.executeAsync("order totals");

        killATaskManagerOnceACheckpointCompleted(cluster, job);

        assertThat(totals("customer_totals")).isEqualTo(expected());
        assertThat(totals("customer_totals_committed")).isEqualTo(expected());
    }

    @Test
    void theSqlJobsTotalsEndExact(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Path password = Files.writeString(dir.resolve("password"), "postgres");
        StreamTableEnvironment tables = StreamTableEnvironment.create(environment());
        List<String> statements =
                OrderTotalsSql.statements(
                        url(), "postgres", password.toString(), ORDERS, PER_SECOND);
        for (String ddl : statements.subList(0, statements.size() - 1)) {
            tables.executeSql(ddl);
        }
        JobClient job =
                tables.executeSql(statements.get(statements.size() - 1)).getJobClient().get();

        killATaskManagerOnceACheckpointCompleted(cluster, job);

        assertThat(totals("customer_totals_sql")).isEqualTo(expected());
        assertThat(totals("customer_totals_sql_committed")).isEqualTo(expected());
    }

    private static StreamExecutionEnvironment environment() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(500);
        return env;
    }

    /** Kills the oldest live TaskManager, starts another, waits for the restore and the end. */
    private static void killATaskManagerOnceACheckpointCompleted(MiniCluster cluster, JobClient job)
            throws Exception {
        JobID id = job.getJobID();
        await("a completed checkpoint of job " + id)
                .atMost(TIMEOUT)
                .until(() -> counts(cluster, id).getNumberOfCompletedCheckpoints() > 0);
        cluster.terminateTaskManager(killed++).get();
        cluster.startTaskManager();
        job.getJobExecutionResult().get(TIMEOUT.toMinutes(), TimeUnit.MINUTES);
        assertThat(counts(cluster, id).getNumberOfRestoredCheckpoints())
                .as("restores of job %s: the kill landed before its end", id)
                .isPositive();
    }

    private static CheckpointStatsCounts counts(MiniCluster cluster, JobID id) throws Exception {
        return cluster.getExecutionGraph(id).get().getCheckpointStatsSnapshot().getCounts();
    }

    private static PostgresStoreConfig store(String table) {
        return PostgresStoreConfig.builder()
                .url(url())
                .username("postgres")
                .password("postgres")
                .table(table)
                .build();
    }

    private static String url() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    /** What the orders add up to per customer, counted without Flink. */
    private static Map<Long, Long> expected() {
        Map<Long, Long> totals = new TreeMap<>();
        for (long n = 0; n < ORDERS; n++) {
            Order order = Order.number(n);
            totals.merge(order.customer(), order.amount(), Long::sum);
        }
        return totals;
    }

    private static Map<Long, Long> totals(String table) throws Exception {
        Map<Long, Long> totals = new TreeMap<>();
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT customer, total FROM " + table)) {
            while (rs.next()) {
                totals.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return totals;
    }
}
