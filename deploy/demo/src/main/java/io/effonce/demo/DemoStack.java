package io.effonce.demo;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.RelayCli;
import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.feed.DatabaseLogin;
import io.effonce.feed.page.LivePageServer;
import io.effonce.feed.page.PageSettings;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.Files2;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** Everything the demo runs, started in order and stopped in reverse. */
final class DemoStack implements AutoCloseable {

    static final String TOPIC_PREFIX = "effonce";

    final EmbeddedPostgres postgres;
    final EmbeddedKafka kafka;
    final PostgresEndpoint ledger;
    final LedgerRelay relay;
    final LocalFlinkCluster cluster;
    final String jobId;

    /** The live page, or null when the demo runs without it. */
    private LivePageServer page;

    private DemoStack(
            EmbeddedPostgres postgres,
            EmbeddedKafka kafka,
            PostgresEndpoint ledger,
            LedgerRelay relay,
            LocalFlinkCluster cluster,
            String jobId) {
        this.postgres = postgres;
        this.kafka = kafka;
        this.ledger = ledger;
        this.relay = relay;
        this.cluster = cluster;
        this.jobId = jobId;
    }

    /**
     * The demo's stack: its workload compresses days into seconds, hence the wide horizon; and the
     * live page on {@code --page-port} unless it is 0.
     */
    static DemoStack start(Demo options) throws IOException {
        DemoStack stack =
                start(
                        options.workDir,
                        options.jobJar,
                        options.parallelism,
                        options.highAvailability,
                        List.of(
                                // The relay's lag of a second is an hour of the demo's event time.
                                "--dedup.horizon",
                                "12h",
                                "--watermark.out-of-orderness",
                                "30min",
                                // Event time starts tomorrow and runs days ahead of the clocks that
                                // stamp Kafka records; a real ledger keeps the default of 5 min.
                                "--event-time.tolerance",
                                (options.days + 2) + "d"),
                        List.of());
        if (options.pagePort != 0) {
            try {
                stack.servePage(options.workDir.toAbsolutePath(), options.pagePort);
            } catch (IOException | RuntimeException e) {
                stack.close();
                throw e;
            }
        }
        return stack;
    }

    /**
     * Serves the live page on {@code port} of this machine, reading as the read-only role
     * effonce_dashboard (its password in a file under {@code work}, like the sink's).
     */
    private void servePage(Path work, int port) throws IOException {
        String password =
                setPassword(ledger, "effonce_dashboard", work.resolve("dashboard.password"));
        page =
                LivePageServer.start(
                        PageSettings.of(
                                new DatabaseLogin(ledger.jdbcUrl(), "effonce_dashboard", password),
                                port));
        say(
                "Live page: "
                        + page.uri()
                        + " — the top merchants of the day, committed beside live, refreshed on"
                        + " every checkpoint's commit (as effonce_dashboard)");
    }

    /** The live page's address, or null without one. */
    URI pageUri() {
        return page == null ? null : page.uri();
    }

    /**
     * Starts every service and submits the job, with the standard arguments and {@code
     * extraJobArgs} for the job, {@code extraRelayArgs} for the relay; with {@code
     * highAvailability} the cluster runs ZooKeeper and a standby JobManager.
     */
    static DemoStack start(
            Path workDir,
            Path jobJar,
            int parallelism,
            boolean highAvailability,
            List<String> extraJobArgs,
            List<String> extraRelayArgs)
            throws IOException {
        Path work = workDir.toAbsolutePath();
        Files2.deleteRecursively(work);
        Files.createDirectories(work);
        if (!Files.isRegularFile(jobJar)) {
            throw new IllegalStateException(
                    "No job jar at " + jobJar + "; build it first: mvn -B -DskipTests install");
        }
        say("Starting PostgreSQL and Kafka");
        EmbeddedPostgres postgres = EmbeddedPostgres.start();
        EmbeddedKafka kafka = EmbeddedKafka.start();
        PostgresEndpoint ledger = LocalServices.newDatabase(postgres.endpoint(), "effonce_demo");
        SchemaTool.applyAll(ledger);
        Path sinkPassword = work.resolve("sink.password");
        String password = setPassword(ledger, "effonce_sink", sinkPassword);

        say("Starting the relay (Debezium → Kafka topic " + TOPIC_PREFIX + ".public.payments)");
        List<String> relayArgs =
                new ArrayList<>(
                        List.of(
                                "--db-url", ledger.jdbcUrl(),
                                "--db-user", ledger.user(),
                                "--slot", "effonce_demo",
                                "--topic-prefix", TOPIC_PREFIX,
                                "--partitions", "4",
                                "--kafka-bootstrap", kafka.bootstrapServers(),
                                "--offsets-file", work.resolve("relay.offsets").toString()));
        relayArgs.addAll(extraRelayArgs);
        LedgerRelay relay =
                LedgerRelay.start(
                        RelayCli.parse(
                                relayArgs.toArray(String[]::new),
                                Map.of("EFFONCE_PG_PASSWORD", ledger.password())));

        say(
                highAvailability
                        ? "Starting a Flink cluster: ZooKeeper, a leading and a standby JobManager,"
                                + " 2 TaskManagers, as OS processes"
                        : "Starting a Flink cluster: 1 JobManager, 2 TaskManagers, as OS processes");
        ClusterSpec.Builder spec =
                ClusterSpec.builder(work.resolve("flink"))
                        .taskManagers(2)
                        .slotsPerTaskManager(2)
                        .fastFailover()
                        .config("execution.checkpointing.interval", "2s");
        if (highAvailability) {
            spec.highAvailability();
        }
        LocalFlinkCluster cluster = LocalFlinkCluster.start(spec.build());
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers", kafka.bootstrapServers(),
                                "--kafka.topic", TOPIC_PREFIX + ".public.payments",
                                "--postgres.url", ledger.jdbcUrl(),
                                "--postgres.user", "effonce_sink",
                                "--postgres.password-file", sinkPassword.toString()));
        args.addAll(extraJobArgs);
        String jobId =
                cluster.jobs()
                        .submit(
                                JobSubmission.of(
                                                jobJar,
                                                "io.effonce.job.LedgerTotalsJob",
                                                args.toArray(String[]::new))
                                        .withParallelism(parallelism));
        cluster.jobs().awaitAllTasksRunning(jobId);
        say(
                "Job "
                        + jobId
                        + " is running; password of effonce_sink is in "
                        + sinkPassword
                        + " ("
                        + password.length()
                        + " characters)");
        return new DemoStack(postgres, kafka, ledger, relay, cluster, jobId);
    }

    private static String setPassword(PostgresEndpoint db, String role, Path file)
            throws IOException {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        String password = HexFormat.of().formatHex(bytes);
        Files.writeString(file, password);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            // A role name from this class, a password from hex digits: nothing to escape.
            s.execute("ALTER ROLE " + role + " PASSWORD '" + password + "'");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("Cannot set the password of " + role, e);
        }
        return password;
    }

    static void say(String line) {
        System.out.println("==> " + line);
    }

    @Override
    public void close() {
        if (page != null) {
            closeQuietly(page::close);
        }
        closeQuietly(cluster::close);
        closeQuietly(relay::close);
        closeQuietly(kafka::close);
        closeQuietly(postgres::close);
    }

    private static void closeQuietly(Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            System.err.println("While stopping: " + e);
        }
    }
}
