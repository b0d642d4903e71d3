package io.effonce.testing.kafka;

import static org.awaitility.Awaitility.await;

import io.effonce.testing.ChildJvm;
import io.effonce.testing.Files2;
import io.effonce.testing.StartupFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka as production runs it: several KRaft nodes (each broker and controller, the controllers a
 * quorum) as separate operating-system processes on 127.0.0.1, internal topics replicated three
 * ways with {@code min.insync.replicas} 2. A node can be {@link #kill killed} the way the operating
 * system would (SIGKILL: no controlled shutdown, no leadership handed over) and {@link #restart
 * started again} on its own data directory and ports.
 */
public final class KafkaBrokers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokers.class);
    private static final String SERVICE = "Kafka brokers";

    /** Generous: a JVM start and a metadata catch-up on a busy 2-core machine. */
    public static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final Path dir;
    private final List<Node> nodes;
    private final ChildJvm[] processes;

    private record Node(int id, int clientPort, int controllerPort, Path config, Path log) {}

    private KafkaBrokers(Path dir, List<Node> nodes) {
        this.dir = dir;
        this.nodes = nodes;
        this.processes = new ChildJvm[nodes.size()];
    }

    /**
     * Formats {@code count} nodes' storage under a new temporary directory, starts them, and
     * returns once every broker is registered and unfenced.
     */
    public static KafkaBrokers start(int count) {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        KafkaBrokers brokers = null;
        try {
            dir = Files.createTempDirectory("effonce-kafka-brokers-");
            List<Node> nodes = new ArrayList<>();
            List<Integer> ports = freePorts(2 * count);
            for (int id = 1; id <= count; id++) {
                nodes.add(
                        new Node(
                                id,
                                ports.get(2 * (id - 1)),
                                ports.get(2 * (id - 1) + 1),
                                dir.resolve("node-" + id + ".properties"),
                                dir.resolve("node-" + id + ".log")));
            }
            brokers = new KafkaBrokers(dir, nodes);
            brokers.writeConfigs();
            brokers.format();
            for (Node node : nodes) {
                brokers.launch(node);
            }
            brokers.awaitBrokers(count);
            LOG.info("{} are up at {} with data in {}", SERVICE, brokers.bootstrapServers(), dir);
            return brokers;
        } catch (IOException | RuntimeException e) {
            if (brokers != null) {
                brokers.close();
            }
            throw StartupFailure.explain(SERVICE, dir, e);
        }
    }

    /** Every node's client address, for example {@code 127.0.0.1:40001,127.0.0.1:40003}. */
    public String bootstrapServers() {
        return nodes.stream()
                .map(n -> "127.0.0.1:" + n.clientPort())
                .collect(Collectors.joining(","));
    }

    /** The node ids, 1 to the count. */
    public List<Integer> ids() {
        return nodes.stream().map(Node::id).toList();
    }

    /** SIGKILL to node {@code id}; returns once the process is gone. */
    public void kill(int id) {
        ChildJvm process = processes[id - 1];
        try {
            process.kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing Kafka node " + id, e);
        }
        LOG.info("Kafka node {} killed (SIGKILL)", id);
    }

    /**
     * Starts node {@code id} again on its data directory and ports; returns once the cluster counts
     * it as a broker again. Its replicas catch up afterwards: see {@link #awaitFullyReplicated}.
     */
    public void restart(int id) {
        if (processes[id - 1].isAlive()) {
            throw new IllegalStateException("Kafka node " + id + " still runs; kill it first");
        }
        try {
            launch(nodes.get(id - 1));
        } catch (IOException e) {
            throw new UncheckedIOException("Kafka node " + id + " did not start again", e);
        }
        awaitBrokers(nodes.size());
        LOG.info("Kafka node {} started again", id);
    }

    /** The node leading {@code partition} of {@code topic}, waiting while it has none. */
    public int leaderOf(String topic, int partition) {
        return awaitLeaderOtherThan(topic, partition, -1);
    }

    /**
     * Waits until a node other than {@code dead} leads {@code partition}: the controller has fenced
     * the dead node (its session timed out) and elected a replica that was in sync.
     */
    public int awaitLeaderOtherThan(String topic, int partition, int dead) {
        int[] leader = new int[1];
        await("a leader other than node " + dead + " for " + topic + "-" + partition)
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(
                        () -> {
                            TopicPartitionInfo info = describe(topic).partitions().get(partition);
                            if (info.leader() == null
                                    || info.leader().isEmpty()
                                    || info.leader().id() == dead) {
                                return false;
                            }
                            leader[0] = info.leader().id();
                            return true;
                        });
        return leader[0];
    }

    /** The partition's end offset: the offset the next record written to it gets. */
    public long endOffset(String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        try (Admin admin = admin()) {
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
        }
    }

    /** The offset {@code group} committed for the partition, -1 when it has none. */
    public long committedOffset(String group, String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        try (Admin admin = admin()) {
            OffsetAndMetadata committed =
                    admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .get(tp);
            return committed == null ? -1 : committed.offset();
        }
    }

    /** Waits until every partition of {@code topic} has all its replicas in sync again. */
    public void awaitFullyReplicated(String topic) {
        await("every partition of " + topic + " with all its replicas in sync")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .until(
                        () ->
                                describe(topic).partitions().stream()
                                        .allMatch(
                                                p ->
                                                        Set.copyOf(p.isr())
                                                                .equals(Set.copyOf(p.replicas()))));
    }

    /** The node's process output, for a failure message. */
    public Path log(int id) {
        return nodes.get(id - 1).log();
    }

    private TopicDescription describe(String topic) throws Exception {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        }
    }

    private Admin admin() {
        return Admin.create(
                Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers(),
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                        10_000,
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        5_000,
                        "metadata.recovery.strategy",
                        "none"));
    }

    private void awaitBrokers(int count) {
        await(count + " Kafka brokers registered (logs in " + dir + ")")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .until(
                        () -> {
                            try (Admin admin = admin()) {
                                return admin.describeCluster().nodes().get().size() == count;
                            }
                        });
    }

    private void writeConfigs() throws IOException {
        String voters =
                nodes.stream()
                        .map(n -> n.id() + "@127.0.0.1:" + n.controllerPort())
                        .collect(Collectors.joining(","));
        int replicas = Math.min(3, nodes.size());
        int minInSync = Math.min(2, replicas);
        for (Node n : nodes) {
            Path data = dir.resolve("node-" + n.id());
            Files.createDirectories(data);
            String config =
                    String.join(
                            "\n",
                            "process.roles=broker,controller",
                            "node.id=" + n.id(),
                            "controller.quorum.voters=" + voters,
                            "listeners=PLAINTEXT://127.0.0.1:"
                                    + n.clientPort()
                                    + ",CONTROLLER://127.0.0.1:"
                                    + n.controllerPort(),
                            "advertised.listeners=PLAINTEXT://127.0.0.1:" + n.clientPort(),
                            "controller.listener.names=CONTROLLER",
                            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                            "log.dirs=" + data,
                            "default.replication.factor=" + replicas,
                            "min.insync.replicas=" + minInSync,
                            "offsets.topic.replication.factor=" + replicas,
                            "transaction.state.log.replication.factor=" + replicas,
                            "transaction.state.log.min.isr=" + minInSync,
                            "num.partitions=4",
                            "group.initial.rebalance.delay.ms=0",
                            "");
            Files.writeString(n.config(), config);
        }
        Files.writeString(
                dir.resolve("log4j2.properties"),
                String.join(
                        "\n",
                        "rootLogger.level=WARN",
                        "rootLogger.appenderRef.out.ref=out",
                        "appender.out.type=Console",
                        "appender.out.name=out",
                        "appender.out.layout.type=PatternLayout",
                        "appender.out.layout.pattern=%d{HH:mm:ss.SSS} %-5p %c{1} - %m%n",
                        // One line when the node is up, and every leadership change.
                        "logger.server.name=kafka.server.KafkaRaftServer",
                        "logger.server.level=INFO",
                        ""));
    }

    /** Formats every node's storage with one cluster id, the formatting tools in parallel. */
    private void format() throws IOException {
        // Kafka's own ids never start with '-', which the tool would read as an option.
        String clusterId = Uuid.randomUuid().toString();
        List<ChildJvm> tools = new ArrayList<>();
        try {
            for (Node n : nodes) {
                tools.add(
                        ChildJvm.start(
                                "kafka.tools.StorageTool",
                                jvmOptions(),
                                List.of("format", "-t", clusterId, "-c", n.config().toString()),
                                Map.of(),
                                n.log()));
            }
            for (int i = 0; i < tools.size(); i++) {
                int exit = tools.get(i).waitFor(TIMEOUT.toSeconds());
                if (exit != 0) {
                    throw new IllegalStateException(
                            "formatting Kafka node "
                                    + nodes.get(i).id()
                                    + " exited "
                                    + exit
                                    + ": "
                                    + tools.get(i).output());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while formatting Kafka storage", e);
        } finally {
            for (ChildJvm tool : tools) {
                closeQuietly(tool);
            }
        }
    }

    private void launch(Node n) throws IOException {
        processes[n.id() - 1] =
                ChildJvm.start(
                        "kafka.Kafka",
                        jvmOptions(),
                        List.of(n.config().toString()),
                        Map.of(),
                        n.log());
    }

    private List<String> jvmOptions() {
        List<String> options = new ArrayList<>(ChildJvm.QUICK_START);
        options.add("-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"));
        return options;
    }

    /** Free ports now; a node binds them moments later. */
    private static List<Integer> freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    private static void closeQuietly(ChildJvm process) {
        try {
            process.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills every node and deletes their data. */
    @Override
    public void close() {
        for (ChildJvm process : processes) {
            if (process != null) {
                closeQuietly(process);
            }
        }
        Files2.deleteRecursively(dir);
    }
}
