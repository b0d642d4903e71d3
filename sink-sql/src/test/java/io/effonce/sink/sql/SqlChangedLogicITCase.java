package io.effonce.sink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.effonce.testing.ChildJvm;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQL job whose logic changes across a savepoint, written through both connectors at once. v1
 * counts SUCCEEDED and FAILED payments per merchant, day and currency; a savepoint is taken, v1
 * goes on and writes what the next changes make of its totals (the erased run), and is cancelled;
 * v2, counting SUCCEEDED only, restores the savepoint and replays from it. What v1 wrote after the
 * savepoint is no part of v2's history: the effonce-postgres table ends exactly at v2's totals (the
 * flush after the restore removed the erased run's rows), while the JDBC connector's table keeps
 * them — a merchant-day only FAILED payments made after the savepoint (a ghost) and a merchant-day
 * whose later FAILED payment v2 never counts (a wrong total).
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class SqlChangedLogicITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    /** Before the savepoint: m1 and m3 each with a success and a failure on 2026-11-28. */
    private static final List<Payment> BEFORE =
            List.of(
                    new Payment("p1", "m1", 12_000, "SUCCEEDED"),
                    new Payment("p2", "m1", 700, "FAILED"),
                    new Payment("p3", "m3", 4_000, "SUCCEEDED"),
                    new Payment("p4", "m3", 300, "FAILED"));

    /** After it: m1's 3,000 succeeds, m2 only fails, m3 fails once more. */
    private static final List<Payment> AFTER =
            List.of(
                    new Payment("p5", "m1", 3_000, "SUCCEEDED"),
                    new Payment("p6", "m2", 500, "FAILED"),
                    new Payment("p7", "m3", 900, "FAILED"));

    @TempDir Path dir;

    /** A test that failed leaves no job behind to hold the next one's slots. */
    @AfterEach
    void cancelJobs(@InjectClusterClient ClusterClient<?> cluster) throws Exception {
        for (JobStatusMessage job : cluster.listJobs().get()) {
            if (!job.getJobState().isGloballyTerminalState()) {
                cluster.cancel(job.getJobId()).get();
            }
        }
    }

    @Test
    void theEffonceTableEndsAtTheNewLogicsTotalsTheJdbcTableKeepsTheErasedRun(
            PostgresEndpoint server,
            KafkaBootstrap kafka,
            @InjectClusterClient ClusterClient<?> cluster)
            throws Exception {
        Map<String, Long> jdbc =
                play(
                        new LogicChange(
                                "sql-changed-logic",
                                BEFORE,
                                counting("'SUCCEEDED', 'FAILED'"),
                                Map.of("m1|EUR", 12_700L, "m3|EUR", 4_300L),
                                AFTER,
                                Map.of("m1|EUR", 15_700L, "m2|EUR", 500L, "m3|EUR", 5_200L),
                                counting("'SUCCEEDED'"),
                                // v1's state at the savepoint, then the successes after it
                                Map.of("m1|EUR", 15_700L, "m3|EUR", 4_300L),
                                "m1|EUR"),
                        server,
                        kafka,
                        cluster);
        assertThat(jdbc)
                .as("the JDBC connector keeps the erased run: m2 a ghost, m3 still counts p7")
                .containsEntry("m2|EUR", 500L)
                .containsEntry("m3|EUR", 5_200L);
    }

    /**
     * A key the erased run deleted, which the new logic keeps. v1 counts each payment whose latest
     * change is SUCCEEDED; after the savepoint m2's only payment is refunded and v1 deletes m2's
     * row. v2 ignores refunds (they are booked elsewhere), so from the savepoint m2 keeps 200 and
     * its replay never writes m2 again. The JDBC table has lost m2 for good; the effonce-postgres
     * table has it back: the deletion after the restored barrier made the restore flush full.
     */
    @Test
    void aKeyTheErasedRunDeletedIsBackInTheEffonceTableAndLostInTheJdbcTable(
            PostgresEndpoint server,
            KafkaBootstrap kafka,
            @InjectClusterClient ClusterClient<?> cluster)
            throws Exception {
        Map<String, Long> erasedRun = Map.of("m1|EUR", 150L);
        Map<String, Long> jdbc =
                play(
                        new LogicChange(
                                "sql-erased-delete",
                                List.of(
                                        new Payment("d1", "m1", 100, "SUCCEEDED"),
                                        new Payment("d2", "m2", 200, "SUCCEEDED")),
                                succeededIgnoring("NONE"),
                                Map.of("m1|EUR", 100L, "m2|EUR", 200L),
                                List.of(
                                        new Payment("d2", "m2", 200, "REFUNDED"),
                                        new Payment("d3", "m1", 50, "SUCCEEDED")),
                                erasedRun,
                                succeededIgnoring("REFUNDED"),
                                Map.of("m1|EUR", 150L, "m2|EUR", 200L),
                                "m1|EUR"),
                        server,
                        kafka,
                        cluster);
        assertThat(jdbc)
                .as("the JDBC connector lost m2: the erased run deleted it")
                .isEqualTo(erasedRun);
    }

    /**
     * A change of logic across a savepoint: the payments before it, what v1 counts and the totals
     * then; the payments after it, which v1 counts in the run the restore erases; what v2 counts
     * and its totals; a key whose v2 total in the JDBC table shows v2 replayed past the savepoint.
     */
    private record LogicChange(
            String name,
            List<Payment> before,
            String v1,
            Map<String, Long> atSavepoint,
            List<Payment> after,
            Map<String, Long> erasedRun,
            String v2,
            Map<String, Long> v2Totals,
            String replayedKey) {}

    /**
     * Plays {@code change} with both connectors in one job (a database and a topic of its own);
     * requires the effonce-postgres table and its committed table at v2's totals, and returns the
     * JDBC table once v2 has replayed past the savepoint.
     */
    private Map<String, Long> play(
            LogicChange change,
            PostgresEndpoint server,
            KafkaBootstrap kafka,
            ClusterClient<?> cluster)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, change.name().replace('-', '_'));
        Path password = Files.writeString(dir.resolve("pg.password"), db.password() + "\n");
        createJdbcTable(db);
        String topic = change.name();
        KafkaTopics.create(kafka.servers(), topic, 1);
        publish(kafka.servers(), topic, change.before());

        JobID v1 = start(cluster, db, password, kafka.servers(), topic, change.v1(), null);
        awaitTotals(cluster, v1, db, "effonce_totals", change.atSavepoint(), "v1's totals");
        awaitTotals(
                cluster, v1, db, "jdbc_totals", change.atSavepoint(), "v1's totals through JDBC");
        String savepoint =
                cluster.triggerSavepoint(
                                v1,
                                dir.resolve("savepoints").toUri().toString(),
                                SavepointFormatType.CANONICAL)
                        .get();

        publish(kafka.servers(), topic, change.after());
        awaitTotals(
                cluster, v1, db, "effonce_totals", change.erasedRun(), "the erased run's totals");
        awaitTotals(
                cluster,
                v1,
                db,
                "jdbc_totals",
                change.erasedRun(),
                "the erased run's totals through JDBC");
        cluster.cancel(v1).get();

        JobID v2 = start(cluster, db, password, kafka.servers(), topic, change.v2(), savepoint);
        awaitTotals(
                cluster,
                v2,
                db,
                "effonce_totals",
                change.v2Totals(),
                "v2's totals in the effonce-postgres table");
        Long replayed = change.v2Totals().get(change.replayedKey());
        await("v2's " + change.replayedKey() + " through JDBC (v2 replayed past the savepoint)")
                .atMost(TIMEOUT)
                .until(
                        () ->
                                running(cluster, v2)
                                        && replayed.equals(
                                                totals(db, "jdbc_totals")
                                                        .get(change.replayedKey())));
        Map<String, Long> jdbc = totals(db, "jdbc_totals");
        assertThat(totals(db, "effonce_totals")).isEqualTo(change.v2Totals());
        assertThat(committed(db)).as("the committed table follows").isEqualTo(change.v2Totals());
        cluster.cancel(v2).get();
        return jdbc;
    }

    @Test
    void aMissingTableFailsTheJobOnceWithTheScriptThatCreatesIt(PostgresEndpoint server)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "sqlmissing");
        Path password = Files.writeString(dir.resolve("pg.password"), db.password() + "\n");
        Configuration conf = new Configuration();
        conf.setString("restart-strategy.type", "fixed-delay");
        // Restarts without end: only a failure Flink does not restart ends the job.
        conf.setString("restart-strategy.fixed-delay.attempts", String.valueOf(Integer.MAX_VALUE));
        conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(300);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(
                "CREATE TABLE numbers (k STRING, v BIGINT) WITH ('connector' = 'datagen',"
                        + " 'number-of-rows' = '10', 'fields.k.length' = '2')");
        tables.executeSql(
                "CREATE TABLE missing_totals (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED)"
                        + " WITH ('connector' = 'effonce-postgres', 'url' = '"
                        + db.jdbcUrl()
                        + "', 'table-name' = 'missing_totals', 'username' = '"
                        + db.user()
                        + "', 'password-file' = '"
                        + password
                        + "')");
        var result =
                tables.executeSql(
                        "INSERT INTO missing_totals SELECT k, SUM(v) FROM numbers GROUP BY k");
        JobClient job = result.getJobClient().orElseThrow();
        assertThatThrownBy(
                        () ->
                                job.getJobExecutionResult()
                                        .get(TIMEOUT.toMinutes(), TimeUnit.MINUTES))
                .as("the job failed once, within %s, although it may restart without end", TIMEOUT)
                .isInstanceOf(ExecutionException.class)
                .hasStackTraceContaining("lack table missing_totals")
                .hasStackTraceContaining("CREATE TABLE IF NOT EXISTS missing_totals (")
                .hasStackTraceContaining("CREATE TABLE IF NOT EXISTS sink_fences")
                .hasStackTraceContaining("sink.create-tables=true")
                .satisfies(
                        failure -> {
                            // The script also in a file, with its lines, ready for psql -f.
                            Matcher file =
                                    Pattern.compile("The script is also in the file (\\S+\\.sql)")
                                            .matcher(stackTrace(failure));
                            assertThat(file.find()).as("the file named").isTrue();
                            assertThat(Files.readAllLines(Path.of(file.group(1))))
                                    .anyMatch(
                                            l ->
                                                    l.startsWith(
                                                            "CREATE TABLE IF NOT EXISTS missing_totals ("))
                                    .anyMatch(l -> l.startsWith("GRANT "));
                        });
    }

    private static String stackTrace(Throwable t) {
        StringWriter text = new StringWriter();
        t.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    /** Totals of the payments whose changes have one of the {@code states} (a SQL list). */
    private static String counting(String states) {
        return "SELECT `after`.merchant_id, `after`.`day`, `after`.currency,"
                + " SUM(`after`.amount), COUNT(*) FROM changes WHERE `after`.state IN ("
                + states
                + ") GROUP BY `after`.merchant_id, `after`.`day`, `after`.currency";
    }

    /**
     * Totals of the payments whose latest change is SUCCEEDED, reading only the changes that are
     * not {@code ignored}: a payment refunded later leaves its merchant-day, which is deleted when
     * it had no other payment.
     */
    private static String succeededIgnoring(String ignored) {
        return "SELECT merchant_id, `day`, currency, SUM(amount), COUNT(*) FROM (SELECT"
                + " `after`.payment_id, LAST_VALUE(`after`.merchant_id) AS merchant_id,"
                + " LAST_VALUE(`after`.`day`) AS `day`, LAST_VALUE(`after`.currency) AS currency,"
                + " LAST_VALUE(`after`.amount) AS amount, LAST_VALUE(`after`.state) AS state"
                + " FROM changes WHERE `after`.state <> '"
                + ignored
                + "' GROUP BY `after`.payment_id) WHERE state = 'SUCCEEDED'"
                + " GROUP BY merchant_id, `day`, currency";
    }

    /** Plans one version in its own JVM and submits it (see {@link ChangedLogicSubmitter}). */
    private JobID start(
            ClusterClient<?> cluster,
            PostgresEndpoint db,
            Path password,
            String kafka,
            String topic,
            String query,
            String savepoint)
            throws Exception {
        Path log =
                Path.of(
                        "target",
                        "changed-logic",
                        topic + "-" + (savepoint == null ? "v1" : "v2") + ".log");
        Files.deleteIfExists(log); // the output of this submission only
        try (ChildJvm client =
                ChildJvm.start(
                        ChangedLogicSubmitter.class.getName(),
                        List.of(
                                cluster.getWebInterfaceURL(),
                                db.jdbcUrl(),
                                db.user(),
                                password.toString(),
                                db.password(),
                                kafka,
                                topic,
                                query,
                                savepoint == null ? "-" : savepoint),
                        Map.of(),
                        log)) {
            int exit = client.waitFor(TIMEOUT.toSeconds());
            String output = client.output();
            Matcher job = Pattern.compile("JOB ([0-9a-f]{32})").matcher(output);
            assertThat(exit == 0 && job.find())
                    .as("the client submitted the job; its output:%n%s", output)
                    .isTrue();
            return JobID.fromHexString(job.group(1));
        }
    }

    private static void awaitTotals(
            ClusterClient<?> cluster,
            JobID job,
            PostgresEndpoint db,
            String table,
            Map<String, Long> expected,
            String what) {
        await(what + " in " + table + ": " + expected)
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> running(cluster, job) && totals(db, table).equals(expected));
    }

    /** True while the job runs; a job that ended fails the test with its cause. */
    private static boolean running(ClusterClient<?> cluster, JobID job) throws Exception {
        if (cluster.getJobStatus(job).get().isGloballyTerminalState()) {
            JobResult result = cluster.requestJobResult(job).get();
            throw new AssertionError(
                    "the job ended as " + result.getJobStatus().orElse(null),
                    result.getSerializedThrowable()
                            .map(t -> t.deserializeError(ClassLoader.getSystemClassLoader()))
                            .orElse(null));
        }
        return true;
    }

    private static void createJdbcTable(PostgresEndpoint db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE jdbc_totals (merchant_id text, day date, currency text,"
                            + " total_minor bigint, payments bigint,"
                            + " PRIMARY KEY (merchant_id, day, currency))");
        }
    }

    /** The effonce table's committed values, once they equal its live ones. */
    private static Map<String, Long> committed(PostgresEndpoint db) {
        Map<String, Long>[] found = new Map[1];
        await("the committed table to catch up with the live one")
                .atMost(TIMEOUT)
                .until(
                        () -> {
                            found[0] = totals(db, "effonce_totals_committed");
                            return found[0].equals(totals(db, "effonce_totals"));
                        });
        return found[0];
    }

    /** merchant|currency → total of 2026-11-28. */
    private static Map<String, Long> totals(PostgresEndpoint db, String table) throws Exception {
        Map<String, Long> totals = new TreeMap<>();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT merchant_id, currency, total_minor FROM "
                                        + table
                                        + " WHERE day = DATE '2026-11-28'")) {
            while (rs.next()) {
                totals.put(rs.getString(1) + "|" + rs.getString(2), rs.getLong(3));
            }
        } catch (SQLException e) {
            if (!"42P01".equals(e.getSQLState())) {
                throw e;
            }
            // the sink creates its table when its first task starts
        }
        return totals;
    }

    private static void publish(String kafka, String topic, List<Payment> payments) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (Payment p : payments) {
            String value =
                    "{\"after\":{\"payment_id\":\""
                            + p.id()
                            + "\",\"merchant_id\":\""
                            + p.merchant()
                            + "\",\"amount\":"
                            + p.amount()
                            + ",\"currency\":\"EUR\",\"state\":\""
                            + p.state()
                            + "\",\"day\":\"2026-11-28\"}}";
            records.add(
                    new ProducerRecord<>(
                            topic,
                            p.id().getBytes(StandardCharsets.UTF_8),
                            value.getBytes(StandardCharsets.UTF_8)));
        }
        KafkaTopics.send(kafka, records);
    }

    private record Payment(String id, String merchant, long amount, String state) {}
}
