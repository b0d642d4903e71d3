package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.cli.ClusterCli;
import io.effonce.it.testutils.ChaosClusterExtension;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.ShellWords;
import io.effonce.it.testutils.TaskManagerKill;
import io.effonce.it.testutils.UserCodeLoaders;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * A session cluster used the way Flink users keep one for weeks: the same JobManager and
 * TaskManager take run after run of the job jar.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class SessionClusterDayTwoITCase {

    private static final Path DIR = WorkDirs.fresh("day-two");

    /** Each test its own topic: the class's tests share one broker. */
    private static final String LOADERS_TOPIC = "daytwo-loaders.public.payments";

    private static final String MISTAKES_TOPIC = "daytwo-mistakes.public.payments";

    private static final String RESUME_TOPIC = "daytwo-resume.public.payments";
    private static final int TASK_MANAGERS = 2;
    private static final int RUNS = 3;
    private static final Path SQL_JAR = Path.of(System.getProperty("effonce.sink-sql.jar"));

    /**
     * Longer than pgjdbc's cleanup thread lives on after the last connection closed (1 s on the
     * chaos clusters, 30 s by default).
     */
    private static final Duration RELEASED_WITHIN = Duration.ofMinutes(3);

    @RegisterExtension
    static final ChaosClusterExtension CLUSTER = new ChaosClusterExtension(DIR, TASK_MANAGERS);

    /**
     * Every run's {@code main} runs in the JobManager and its tasks in the TaskManager, each in a
     * user-code class loader of its own. Once the runs ended, both processes let go of those
     * loaders and of the Metaspace their classes take (some 11 MB a run). Before the PostgreSQL
     * driver's registration was taken back (at the end of {@code main}, and by the tasks'
     * class-loader release hook), every run kept its loader in both processes, and the JobManager,
     * with 256 MB of Metaspace, refused submissions after about ten.
     */
    @Test
    void finishedRunsLeaveNoUserCodeClassLoaderBehind(PostgresEndpoint db, KafkaBootstrap kafka)
            throws Exception {
        KafkaTopics.create(kafka.servers(), LOADERS_TOPIC, 2);
        PostgresEndpoint sink = db.withPasswordFor("effonce_sink", "day-two");
        JobSubmission job =
                JobJar.submission(sink, kafka.servers(), LOADERS_TOPIC, DIR).withParallelism(2);
        FlinkJobs jobs = CLUSTER.cluster().jobs();
        for (int run = 1; run <= RUNS; run++) {
            String jobId = jobs.submit(job);
            jobs.awaitAllTasksRunning(jobId);
            jobs.cancel(jobId);
        }

        List<FlinkProcess> processes = new ArrayList<>(CLUSTER.cluster().liveTaskManagers());
        processes.add(CLUSTER.cluster().leadingJobManager());
        // One loader may stay: a TaskManager keeps the last job's libraries a while.
        for (FlinkProcess process : processes) {
            await(
                            "the user-code class loaders of "
                                    + RUNS
                                    + " ended runs released by "
                                    + process
                                    + " (at most one left)")
                    .atMost(RELEASED_WITHIN)
                    .pollInterval(Duration.ofSeconds(2))
                    .until(() -> UserCodeLoaders.reachable(process) <= 1);
        }

        // And the cluster still takes the job.
        jobs.awaitAllTasksRunning(jobs.submit(job));
    }

    /**
     * The mistakes of a day on a session cluster, each submitted as README's deploy path does: each
     * ends in one line at the submitter, no job is left running or restarting, and the JobManager's
     * log stays small. A wrong Kafka address that {@code main} does not check (the check switched
     * off, as where main runs away from the brokers) fails the running job after the Kafka clients'
     * API timeout; they back off meanwhile, where they wrote some 220,000 lines a minute before.
     */
    @Test
    void eachMistakeEndsInOneLineAndLeavesNoJobRestarting(PostgresEndpoint db, KafkaBootstrap kafka)
            throws Exception {
        KafkaTopics.create(kafka.servers(), MISTAKES_TOPIC, 2);
        PostgresEndpoint sink = db.withPasswordFor("effonce_sink", "day-two");
        JobSubmission job = JobJar.submission(sink, kafka.servers(), MISTAKES_TOPIC, DIR);
        Path jobManagerLog = CLUSTER.cluster().leadingJobManager().logFile();
        long logBefore = Files.size(jobManagerLog);

        // More slots than the cluster has: refused at once, not after Flink's 5 min slot wait.
        List<String> lines = new ArrayList<>();
        assertThat(submit(job.withParallelism(5), lines)).isEqualTo(1);
        assertThat(last(lines))
                .contains("it needs 5 slots and the cluster has 4 in all")
                .contains("it is cancelled");

        // The sink's role without its rights on the totals table: found in main.
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            st.execute("REVOKE INSERT, UPDATE, DELETE ON merchant_daily_totals FROM effonce_sink");
        }
        lines.clear();
        assertThat(submit(job, lines)).isEqualTo(1);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .startsWith("The job was not submitted: ")
                .contains("effonce_sink may not write merchant_daily_totals")
                .contains("deploy/sql/roles.sql");
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            st.execute("GRANT INSERT, UPDATE, DELETE ON merchant_daily_totals TO effonce_sink");
        }

        // Not checked in main, the right Kafka: --wait returns once the source has its
        // partitions and the job completed a checkpoint, and the job runs on.
        List<String> unchecked = new ArrayList<>(job.args());
        unchecked.addAll(List.of("--startup-check", "false"));
        FlinkJobs jobs = CLUSTER.cluster().jobs();
        var before = CLUSTER.cluster().rest().jobs().keySet();
        lines.clear();
        assertThat(submit(job.withArgs(unchecked), lines)).as("%s", lines).isZero();
        String healthy = newJob(before);
        assertThat(CLUSTER.cluster().rest().jobState(healthy)).isEqualTo("RUNNING");
        assertThat(CLUSTER.cluster().rest().checkpoints(healthy).completed())
                .as("checkpoints the job completed before --wait returned")
                .isPositive();
        jobs.cancel(healthy);

        // A Kafka that refuses connections, not checked in main: the tasks start, the source's
        // enumerator (in the JobManager) gives up on the broker after its API timeout (here 5 s,
        // Kafka's default 60 s) and fails the job; meanwhile its client only retries with backoff.
        // --wait waits for the source's partitions, so it reports that failure in one line and
        // cancels the job.
        unchecked.set(unchecked.indexOf(kafka.servers()), "127.0.0.1:1");
        unchecked.addAll(List.of("--kafka.api-timeout", "5 s"));
        before = CLUSTER.cluster().rest().jobs().keySet();
        lines.clear();
        assertThat(submit(job.withArgs(unchecked), lines)).as("%s", lines).isEqualTo(1);
        assertThat(last(lines)).contains("failed while starting").contains("it is cancelled");
        String wrongKafka = newJob(before);
        assertThat(CLUSTER.cluster().rest().failures(wrongKafka))
                .anyMatch(f -> f.contains("TimeoutException"));

        assertThat(CLUSTER.cluster().rest().jobs().values())
                .as("no job left running or restarting")
                .allMatch(state -> Set.of("CANCELED", "FAILED", "FINISHED").contains(state));
        assertThat(Files.size(jobManagerLog) - logBefore)
                .as("bytes the JobManager logged through these mistakes")
                .isLessThan(2_000_000);
    }

    /**
     * A new submit of a cancelled job is a restore: {@code flink-local cancel} says so, and prints
     * the newest retained checkpoint to resume from; a submit from that path runs (where a submit
     * without it meets the sink's refusal of a fresh start, unexplained before).
     */
    @Test
    void cancelPrintsTheCheckpointToResumeFromAndASubmitFromItRuns(
            PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        KafkaTopics.create(kafka.servers(), RESUME_TOPIC, 2);
        PostgresEndpoint sink = db.withPasswordFor("effonce_sink", "day-two");
        JobSubmission job =
                JobJar.submission(sink, kafka.servers(), RESUME_TOPIC, DIR).withParallelism(2);
        FlinkJobs jobs = CLUSTER.cluster().jobs();
        String jobId = jobs.submit(job);
        jobs.awaitAllTasksRunning(jobId);
        jobs.awaitCompletedCheckpoints(jobId, 1);

        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new ClusterCli());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(
                        cli.execute(
                                "--work-dir",
                                CLUSTER.cluster().workDir().toString(),
                                "cancel",
                                jobId))
                .isZero();
        String said = out.toString();
        String marker = "Its newest retained checkpoint is ";
        assertThat(said).contains("Cancelled " + jobId).contains(marker);
        int from = said.indexOf(marker) + marker.length();
        String checkpoint = said.substring(from, said.indexOf(';', from));

        // Follow the printed command, word for word, through a shell (the program aside).
        String command =
                said.lines()
                        .filter(line -> line.startsWith("  "))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no command in: " + said))
                        .strip();
        List<String> words = ShellWords.of(command);
        assertThat(words).as(command).containsSubsequence("submit", "-s", checkpoint);
        StringWriter resumedOut = new StringWriter();
        CommandLine again = new CommandLine(new ClusterCli());
        again.setOut(new PrintWriter(resumedOut, true));
        again.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(again.execute(words.subList(1, words.size()).toArray(String[]::new)))
                .as("the printed command: " + command)
                .isZero();
        String resumed = resumedOut.toString().strip();
        jobs.awaitAllTasksRunning(resumed);
        assertThat(CLUSTER.cluster().rest().checkpoints(resumed).latestRestoredPath())
                .as("the job restored the checkpoint cancel printed")
                .isEqualTo(checkpoint);
        jobs.cancel(resumed);
    }

    /** {@code flink-local submit --wait}, each line it prints on stderr to {@code lines}. */
    private static int submit(JobSubmission job, List<String> lines) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--work-dir",
                                CLUSTER.cluster().workDir().toString(),
                                "submit",
                                "--class",
                                job.entryClass(),
                                "--parallelism",
                                String.valueOf(job.parallelism()),
                                "--wait",
                                job.jar().toString(),
                                "--"));
        args.addAll(job.args());
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new ClusterCli());
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        int code = cli.execute(args.toArray(String[]::new));
        err.toString().lines().filter(l -> !l.isBlank()).forEach(lines::add);
        return code;
    }

    /** The one job the cluster knows now that it did not know {@code before}. */
    private static String newJob(Set<String> before) {
        Set<String> now = new HashSet<>(CLUSTER.cluster().rest().jobs().keySet());
        now.removeAll(before);
        assertThat(now).as("jobs submitted since").hasSize(1);
        return now.iterator().next();
    }

    private static String last(List<String> lines) {
        assertThat(lines).as("what the submit command printed").isNotEmpty();
        return lines.get(lines.size() - 1);
    }

    /** The job's {@code --help}, asked through the submit command, is printed there. */
    @Test
    void theJobsHelpIsPrintedBySubmit() {
        var jobsBefore = CLUSTER.cluster().rest().jobs().keySet();
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new ClusterCli());
        cli.setOut(new PrintWriter(out, true));
        int exit =
                cli.execute(
                        "--work-dir",
                        CLUSTER.cluster().workDir().toString(),
                        "submit",
                        "--class",
                        "io.effonce.job.LedgerTotalsJob",
                        System.getProperty("effonce.job.jar"),
                        "--",
                        "--help");
        assertThat(exit).as(out.toString()).isZero();
        assertThat(out.toString())
                .contains("Usage: LedgerTotalsJob")
                .contains("--kafka.bootstrap-servers")
                .doesNotContain("Description@");
        assertThat(CLUSTER.cluster().rest().jobs().keySet())
                .as("no job submitted")
                .isEqualTo(jobsBefore);
    }

    /**
     * README's Flink SQL path on the multi-process cluster: {@code flink-local sql FILE -j
     * <connector jar>} runs the file with Flink's own SQL client; its INSERT becomes a job whose
     * TaskManager is killed in the middle of a checkpoint, and the table ends equal to a direct
     * count of what the source produced (a bounded sequence, so the count is known exactly).
     */
    @Test
    void aSqlFileRunsFromOneCommandAndItsTableIsExactThroughATaskManagerKill(PostgresEndpoint db)
            throws Exception {
        long rows = 20_000; // ten seconds of data: the kill lands in its first
        int buckets = 7;
        Path password = Files.writeString(DIR.resolve("sql.password"), db.password());
        Path file =
                Files.writeString(
                        DIR.resolve("buckets.sql"),
                        """
                        SET 'parallelism.default' = '2';
                        CREATE TABLE numbers (n BIGINT) WITH (
                          'connector' = 'datagen',
                          'fields.n.kind' = 'sequence',
                          'fields.n.start' = '1',
                          'fields.n.end' = '%d',
                          'rows-per-second' = '2000'
                        );
                        CREATE TABLE residues (
                          residue INT,
                          numbers_seen BIGINT,
                          total BIGINT,
                          PRIMARY KEY (residue) NOT ENFORCED
                        ) WITH (
                          'connector' = 'effonce-postgres',
                          'url' = '%s',
                          'table-name' = 'sql_residues',
                          'username' = '%s',
                          'password-file' = '%s',
                          'sink.create-tables' = 'true'
                        );
                        INSERT INTO residues
                        SELECT CAST(n %% %d AS INT), COUNT(*), SUM(n) FROM numbers
                        GROUP BY CAST(n %% %d AS INT);
                        """
                                .formatted(
                                        rows,
                                        db.jdbcUrl(),
                                        db.user(),
                                        password.toAbsolutePath(),
                                        buckets,
                                        buckets));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine sql = new CommandLine(new ClusterCli());
        sql.setOut(new PrintWriter(out, true));
        sql.setErr(new PrintWriter(err, true));
        int exit =
                sql.execute(
                        "--work-dir",
                        CLUSTER.cluster().workDir().toString(),
                        "sql",
                        file.toString(),
                        "-j",
                        SQL_JAR.toString());
        assertThat(exit).as("flink-local sql's exit code; the SQL client said:%n%s", err).isZero();
        List<String> submitted = out.toString().lines().toList();
        assertThat(submitted)
                .as("the job ids flink-local sql printed; the SQL client said:%n%s", err)
                .hasSize(1);
        String jobId = submitted.get(0);
        assertThat(CLUSTER.cluster().rest().jobs()).containsKey(jobId);
        FlinkJobs jobs = CLUSTER.cluster().jobs();
        jobs.awaitAllTasksRunning(jobId);

        try (ChaosReport report = new ChaosReport("sql-file", db)) {
            TaskManagerKill kill = CLUSTER.chaos().killTaskManagerMidCheckpoint(jobId, report);
            jobs.awaitState(jobId, "FINISHED");
            kill.recovery().exact();
        }

        Map<Integer, List<Long>> expected = new TreeMap<>();
        for (long n = 1; n <= rows; n++) {
            List<Long> bucket =
                    expected.computeIfAbsent(
                            (int) (n % buckets), b -> new ArrayList<>(List.of(0L, 0L)));
            bucket.set(0, bucket.get(0) + 1);
            bucket.set(1, bucket.get(1) + n);
        }
        assertThat(rowsOf(db, "sql_residues")).as("the live table").isEqualTo(expected);
        assertThat(rowsOf(db, "sql_residues_committed"))
                .as("the committed table")
                .isEqualTo(expected);
    }

    /**
     * A SQL file whose job fails while it starts (here the sink's tables are missing): the SQL
     * client had returned 0 once it submitted the INSERT, and the explanation was only in the job's
     * exception history. {@code flink-local sql} now waits for the job to run, prints the failure
     * with its fix in one line, exits 1 and leaves no job running.
     */
    @Test
    void aSqlFileWhoseJobFailsWhileStartingExitsOneWithTheReasonAndLeavesNoJob(PostgresEndpoint db)
            throws Exception {
        Path password = Files.writeString(DIR.resolve("missing.password"), db.password());
        Path file =
                Files.writeString(
                        DIR.resolve("missing.sql"),
                        """
                        CREATE TABLE numbers (n BIGINT) WITH (
                          'connector' = 'datagen',
                          'fields.n.kind' = 'sequence',
                          'fields.n.start' = '1',
                          'fields.n.end' = '100'
                        );
                        CREATE TABLE residues (
                          residue INT,
                          total BIGINT,
                          PRIMARY KEY (residue) NOT ENFORCED
                        ) WITH (
                          'connector' = 'effonce-postgres',
                          'url' = '%s',
                          'table-name' = 'sql_never_created',
                          'username' = '%s',
                          'password-file' = '%s'
                        );
                        INSERT INTO residues
                        SELECT CAST(n %% 3 AS INT), SUM(n) FROM numbers GROUP BY CAST(n %% 3 AS INT);
                        """
                                .formatted(db.jdbcUrl(), db.user(), password.toAbsolutePath()));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine sql = new CommandLine(new ClusterCli());
        sql.setOut(new PrintWriter(out, true));
        sql.setErr(new PrintWriter(err, true));
        int exit =
                sql.execute(
                        "--work-dir",
                        CLUSTER.cluster().workDir().toString(),
                        "sql",
                        file.toString(),
                        "-j",
                        SQL_JAR.toString());
        assertThat(exit).as("flink-local sql's exit code; it said:%n%s", err).isEqualTo(1);
        List<String> submitted = out.toString().lines().toList();
        assertThat(submitted).as("the job id, printed as it was submitted").hasSize(1);
        String jobId = submitted.get(0);
        assertThat(err.toString().lines())
                .as("one line with the cause and what to do; it said:%n%s", err)
                .anySatisfy(
                        line ->
                                assertThat(line)
                                        .contains("Job " + jobId + " failed while starting: ")
                                        .contains("sql_never_created")
                                        .contains(
                                                "It completed no checkpoint: once the cause is"
                                                        + " fixed, run it again as before."));
        assertThat(CLUSTER.cluster().rest().jobState(jobId))
                .as("nothing left running")
                .isIn("FAILED", "CANCELED", "CANCELLING", "FAILING");

        // The cause fixed as the failure says (its tables' script, run by their owner), the same
        // file runs, and its table is exact.
        Matcher script =
                Pattern.compile("The script is also in the file (\\S+) on ")
                        .matcher(err.toString());
        assertThat(script.find()).as("the script's file, named in:%n%s", err).isTrue();
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            st.execute(Files.readString(Path.of(script.group(1))));
        }
        StringWriter againOut = new StringWriter();
        StringWriter againErr = new StringWriter();
        CommandLine again = new CommandLine(new ClusterCli());
        again.setOut(new PrintWriter(againOut, true));
        again.setErr(new PrintWriter(againErr, true));
        assertThat(
                        again.execute(
                                "--work-dir",
                                CLUSTER.cluster().workDir().toString(),
                                "sql",
                                file.toString(),
                                "-j",
                                SQL_JAR.toString()))
                .as("the same file again; it said:%n%s", againErr)
                .isZero();
        String rerun = againOut.toString().strip();
        CLUSTER.cluster().jobs().awaitState(rerun, "FINISHED");
        Map<Integer, Long> expected = new TreeMap<>();
        for (long n = 1; n <= 100; n++) {
            expected.merge((int) (n % 3), n, Long::sum);
        }
        for (String table : List.of("sql_never_created", "sql_never_created_committed")) {
            Map<Integer, Long> found = new TreeMap<>();
            try (Connection c = db.connect();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT residue, total FROM " + table)) {
                while (rs.next()) {
                    found.put(rs.getInt(1), rs.getLong(2));
                }
            }
            assertThat(found).as(table).isEqualTo(expected);
        }
    }

    private static Map<Integer, List<Long>> rowsOf(PostgresEndpoint db, String table)
            throws SQLException {
        Map<Integer, List<Long>> found = new TreeMap<>();
        try (Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT residue, numbers_seen, total FROM " + table)) {
            while (rs.next()) {
                found.put(rs.getInt(1), List.of(rs.getLong(2), rs.getLong(3)));
            }
        }
        return found;
    }
}
