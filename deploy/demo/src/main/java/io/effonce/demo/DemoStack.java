package io.effonce.demo;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.RelayCli;
import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.cluster.LocalPrometheus;
import io.effonce.credentials.DatabaseLogin;
import io.effonce.feed.page.LivePageServer;
import io.effonce.feed.page.PageSettings;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.Files2;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.StreamingStandby;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** Everything the demo runs, started in order and stopped in reverse. */
public final class DemoStack implements AutoCloseable {

    public static final String TOPIC_PREFIX = "effonce";

    /** The project's alert rules, from the root the demo runs in. */
    private static final Path ALERT_RULES = Path.of("deploy", "prometheus", "effonce-alerts.yml");

    final EmbeddedPostgres postgres;
    final EmbeddedKafka kafka;

    /** The first ledger shard. */
    final PostgresEndpoint ledger;

    /** The database with the sink's tables: the first shard's, unless it fails over. */
    final PostgresEndpoint sink;

    /** Every ledger shard, {@link #ledger} first. */
    final List<PostgresEndpoint> shards;

    /**
     * With {@code --ledger-failover}, the first shard's primary and its streaming standby (the
     * first shard's endpoint names both, the primary first); otherwise null.
     */
    final LedgerPair ledgerPair;

    /** One relay per shard, in the order of {@link #shards}; a relay may be started again. */
    private final List<LedgerRelay> relays;

    private final List<Supplier<LedgerRelay>> relayStarts;

    final LocalFlinkCluster cluster;
    final String jobId;

    /** The live page, or null when the demo runs without it. */
    private LivePageServer page;

    /** Where each relay serves its metrics (host:port), in the order of {@link #shards}. */
    private final List<String> relayMetrics;

    /** Prometheus with the project's alert rules, or null unless {@code --prometheus}. */
    private LocalPrometheus prometheus;

    /** The first shard's primary and its standby, synchronizing failover slots. */
    record LedgerPair(EmbeddedPostgres primary, StreamingStandby standby) {

        /** Both, the primary first: pgjdbc connects to whichever is primary. */
        PostgresEndpoint endpoint() {
            return standby.withPrimary(primary);
        }
    }

    private DemoStack(
            EmbeddedPostgres postgres,
            EmbeddedKafka kafka,
            PostgresEndpoint sink,
            List<PostgresEndpoint> shards,
            LedgerPair ledgerPair,
            List<Supplier<LedgerRelay>> relayStarts,
            List<LedgerRelay> relays,
            List<String> relayMetrics,
            LocalFlinkCluster cluster,
            String jobId) {
        this.postgres = postgres;
        this.kafka = kafka;
        this.sink = sink;
        this.shards = List.copyOf(shards);
        this.ledger = shards.get(0);
        this.ledgerPair = ledgerPair;
        this.relayStarts = List.copyOf(relayStarts);
        this.relays = new ArrayList<>(relays);
        this.relayMetrics = List.copyOf(relayMetrics);
        this.cluster = cluster;
        this.jobId = jobId;
    }

    /** The relay of shard {@code shard}. */
    public synchronized LedgerRelay relay(int shard) {
        return relays.get(shard);
    }

    /** The Kafka broker. */
    public EmbeddedKafka kafka() {
        return kafka;
    }

    /** The Flink cluster the job runs on. */
    public LocalFlinkCluster cluster() {
        return cluster;
    }

    /** The job's id. */
    public String jobId() {
        return jobId;
    }

    /** The ledger's database (the first shard's). */
    public PostgresEndpoint ledger() {
        return ledger;
    }

    synchronized List<LedgerRelay> relays() {
        return List.copyOf(relays);
    }

    /** Closes the relay of shard {@code shard} and starts it again with the same arguments. */
    synchronized LedgerRelay restartRelay(int shard) {
        closeQuietly(relays.get(shard)::close);
        LedgerRelay next = relayStarts.get(shard).get();
        relays.set(shard, next);
        return next;
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
                        options.shards,
                        options.ledgerFailover,
                        // The shipped checkpointing: the committed view one watches is the one
                        // a deployment gets.
                        Map.of(),
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
        try {
            if (options.pagePort != 0) {
                stack.servePage(options.workDir.toAbsolutePath(), options.pagePort);
            }
            if (options.prometheus) {
                stack.startPrometheus(options.workDir.toAbsolutePath());
            }
        } catch (IOException | RuntimeException e) {
            stack.close();
            throw e;
        }
        return stack;
    }

    /**
     * Starts Debian's Prometheus on the cluster's and the relays' metrics with the project's alert
     * rules, if it is installed; says where it is, or why not.
     */
    private void startPrometheus(Path work) throws IOException {
        if (!LocalPrometheus.installed()) {
            say(
                    "--prometheus: no "
                            + LocalPrometheus.BINARY
                            + " here (Debian: apt-get install prometheus); the metrics pages above"
                            + " are served all the same");
            return;
        }
        if (!Files.isRegularFile(ALERT_RULES)) {
            throw new IllegalStateException(
                    "No alert rules at "
                            + ALERT_RULES.toAbsolutePath()
                            + ": run the demo from the project's root (./effonce demo)");
        }
        prometheus =
                LocalPrometheus.start(
                        work.resolve("prometheus"),
                        relayMetrics,
                        List.of(ALERT_RULES.toAbsolutePath()));
        say(
                "Prometheus: "
                        + prometheus.address()
                        + " (alerts: "
                        + prometheus.address().resolve("/alerts")
                        + "), scraping every second with deploy/prometheus/effonce-alerts.yml");
    }

    /**
     * Serves the live page on {@code port} of this machine, reading as the read-only role
     * effonce_dashboard (its password in a file under {@code work}, like the sink's).
     */
    private void servePage(Path work, int port) throws IOException {
        String password =
                setPassword(sink, "effonce_dashboard", work.resolve("dashboard.password"));
        page =
                LivePageServer.start(
                        PageSettings.of(
                                new DatabaseLogin(sink.jdbcUrl(), "effonce_dashboard", password),
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
     * The same with one ledger shard, the cluster configured from deploy/flink-conf with {@code
     * flinkConfig} on top.
     */
    public static DemoStack start(
            Path workDir,
            Path jobJar,
            int parallelism,
            Map<String, String> flinkConfig,
            List<String> extraJobArgs,
            List<String> extraRelayArgs)
            throws IOException {
        return start(
                workDir,
                jobJar,
                parallelism,
                false,
                1,
                false,
                flinkConfig,
                extraJobArgs,
                extraRelayArgs);
    }

    /**
     * Starts every service and submits the job, with the standard arguments and {@code
     * extraJobArgs} for the job, {@code extraRelayArgs} for the relays; with {@code
     * highAvailability} the cluster runs ZooKeeper and a standby JobManager. The ledger is {@code
     * shardCount} databases, each with its own relay (slot, topic), and the job reads every shard's
     * topic as one stream; the sink's tables are in the first shard's database. With {@code
     * ledgerFailover} the first shard is a server of its own with a streaming standby (failover
     * slots on), and the sink's tables stay on the other server.
     */
    static DemoStack start(
            Path workDir,
            Path jobJar,
            int parallelism,
            boolean highAvailability,
            int shardCount,
            boolean ledgerFailover,
            Map<String, String> flinkConfig,
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
        PostgresEndpoint sink = LocalServices.newDatabase(postgres.endpoint(), "effonce_demo");
        SchemaTool.applyAll(sink);
        Path sinkPassword = work.resolve("sink.password");
        String password = setPassword(sink, "effonce_sink", sinkPassword);
        LedgerPair pair = null;
        if (ledgerFailover) {
            say("Starting the ledger's primary and its streaming standby (failover slots)");
            EmbeddedPostgres primary = EmbeddedPostgres.start();
            SchemaTool.applyAll(primary.endpoint());
            pair = new LedgerPair(primary, StreamingStandby.of(primary, true));
        }

        List<PostgresEndpoint> shards =
                new ArrayList<>(List.of(pair == null ? sink : pair.endpoint()));
        for (int i = 1; i < shardCount; i++) {
            PostgresEndpoint shard =
                    LocalServices.newDatabase(postgres.endpoint(), "effonce_demo_shard" + i);
            SchemaTool.applyAll(shard);
            shards.add(shard);
        }
        List<LedgerRelay> relays = new ArrayList<>();
        List<Supplier<LedgerRelay>> relayStarts = new ArrayList<>();
        List<String> relayMetrics = new ArrayList<>();
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            String prefix = i == 0 ? TOPIC_PREFIX : TOPIC_PREFIX + "_shard" + i;
            topics.add(prefix + ".public.payments");
            say(
                    "Starting the relay"
                            + (shards.size() > 1 ? " of shard " + i : "")
                            + " (Debezium → Kafka topic "
                            + topics.get(i)
                            + ")");
            PostgresEndpoint shard = shards.get(i);
            String slot = i == 0 ? "effonce_demo" : "effonce_demo_shard" + i;
            // A port of its own, kept when the relay starts again.
            List<String> relayArgs = new ArrayList<>(extraRelayArgs);
            int metricsPort = freePort();
            relayArgs.addAll(List.of("--metrics-port", String.valueOf(metricsPort)));
            relayMetrics.add("127.0.0.1:" + metricsPort);
            relayStarts.add(() -> startRelay(shard, slot, prefix, kafka, work, relayArgs));
            relays.add(relayStarts.get(i).get());
        }

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
                        .quickStartJvms();
        flinkConfig.forEach(spec::config);
        if (highAvailability) {
            spec.highAvailability();
        }
        LocalFlinkCluster cluster = LocalFlinkCluster.start(spec.build());
        String jobId =
                cluster.jobs()
                        .submit(
                                JobSubmission.ledgerJob(
                                                jobJar,
                                                kafka.bootstrapServers(),
                                                String.join(";", topics),
                                                sink.jdbcUrl(),
                                                "effonce_sink",
                                                sinkPassword,
                                                extraJobArgs.toArray(String[]::new))
                                        .withParallelism(parallelism));
        cluster.jobs().awaitAllTasksRunning(jobId);
        say(
                "Metrics, in Prometheus's text format: every Flink process at"
                        + " http://127.0.0.1:9249/metrics and the next ports to 9260, the relay"
                        + (relayMetrics.size() > 1 ? "s" : "")
                        + " at "
                        + relayMetrics.stream()
                                .map(r -> "http://" + r + "/metrics")
                                .collect(Collectors.joining(", "))
                        + " (deploy/prometheus/README.md)");
        say(
                "Job "
                        + jobId
                        + " is running; password of effonce_sink is in "
                        + sinkPassword
                        + " ("
                        + password.length()
                        + " characters)");
        return new DemoStack(
                postgres,
                kafka,
                sink,
                shards,
                pair,
                relayStarts,
                relays,
                relayMetrics,
                cluster,
                jobId);
    }

    private static LedgerRelay startRelay(
            PostgresEndpoint shard,
            String slot,
            String topicPrefix,
            EmbeddedKafka kafka,
            Path work,
            List<String> extraRelayArgs) {
        List<String> relayArgs =
                new ArrayList<>(
                        List.of(
                                "--db-url", shard.jdbcUrl(),
                                "--db-user", shard.user(),
                                "--slot", slot,
                                "--topic-prefix", topicPrefix,
                                "--partitions", "4",
                                "--kafka-bootstrap", kafka.bootstrapServers(),
                                "--offsets-file", work.resolve(slot + ".offsets").toString()));
        relayArgs.addAll(extraRelayArgs);
        return LedgerRelay.start(
                RelayCli.parse(
                        relayArgs.toArray(String[]::new),
                        Map.of("EFFONCE_PG_PASSWORD", shard.password())));
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

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    static void say(String line) {
        System.out.println("==> " + line);
    }

    @Override
    public void close() {
        if (page != null) {
            closeQuietly(page::close);
        }
        if (prometheus != null) {
            closeQuietly(prometheus::close);
        }
        closeQuietly(cluster::close);
        relays().forEach(r -> closeQuietly(r::close));
        closeQuietly(kafka::close);
        if (ledgerPair != null) {
            closeQuietly(ledgerPair.standby()::close);
            closeQuietly(ledgerPair.primary()::close);
        }
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
