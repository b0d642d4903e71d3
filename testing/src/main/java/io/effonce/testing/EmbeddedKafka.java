package io.effonce.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import kafka.server.BrokerServer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker and controller), in this JVM, on
 * 127.0.0.1, with every replication factor set to 1 so one node suffices.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final String SERVICE = "Embedded Kafka";

    private final Path baseDir;
    private final KafkaClusterTestKit cluster;
    private final int port;

    private EmbeddedKafka(Path baseDir, KafkaClusterTestKit cluster, int port) {
        this.baseDir = baseDir;
        this.cluster = cluster;
        this.port = port;
    }

    /** Formats storage in a new temporary directory and starts the broker. */
    public static EmbeddedKafka start() {
        return start(0);
    }

    /**
     * The same, with clients served on 127.0.0.1:{@code port} as well when it is not 0: a fixed
     * address to print for a person (the test kit binds its own listeners to free ports).
     */
    public static EmbeddedKafka start(int port) {
        Path baseDir = Path.of(System.getProperty("java.io.tmpdir"));
        KafkaClusterTestKit cluster = null;
        try {
            baseDir = Files.createTempDirectory("effonce-kafka-");
            TestKitNodes nodes =
                    new TestKitNodes.Builder()
                            .setCombined(true)
                            .setNumBrokerNodes(1)
                            .setNumControllerNodes(1)
                            .setBaseDirectory(baseDir)
                            .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
            if (port != 0) {
                // The kit's own listeners keep their pre-bound sockets whatever port is written
                // here; the third is bound as configured, and advertised as it is.
                builder.setConfigProp(
                                "listeners",
                                "EXTERNAL://localhost:0,CONTROLLER://localhost:0,FIXED://127.0.0.1:"
                                        + port)
                        .setConfigProp(
                                "listener.security.protocol.map",
                                "EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,FIXED:PLAINTEXT");
            }
            cluster =
                    builder.setConfigProp("offsets.topic.replication.factor", "1")
                            .setConfigProp("transaction.state.log.replication.factor", "1")
                            .setConfigProp("transaction.state.log.min.isr", "1")
                            .setConfigProp("default.replication.factor", "1")
                            .setConfigProp("min.insync.replicas", "1")
                            .setConfigProp("num.partitions", "4")
                            .setConfigProp("auto.create.topics.enable", "true")
                            .setConfigProp("group.initial.rebalance.delay.ms", "0")
                            .setDeleteOnClose(true)
                            .build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            EmbeddedKafka kafka = new EmbeddedKafka(baseDir, cluster, port);
            LOG.info("{} is up at {} with data in {}", SERVICE, kafka.bootstrapServers(), baseDir);
            return kafka;
        } catch (Exception e) {
            closeQuietly(cluster);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw StartupFailure.explain(SERVICE, baseDir, e);
        }
    }

    /**
     * Stops the broker (a controlled shutdown) and starts it again on the same data and the same
     * port, so clients reconnect to the address they already have. The controller of this combined
     * node keeps running; returns once the broker is unfenced and serves its partitions again.
     */
    public void restartBroker() {
        restartBroker(Duration.ZERO);
    }

    /** The same, the broker staying down for {@code down} before it starts again. */
    public synchronized void restartBroker(Duration down) {
        String before = bootstrapServers();
        BrokerServer broker = cluster.brokers().values().iterator().next();
        try {
            LOG.info("{} broker stopping", SERVICE);
            broker.shutdown();
            broker.awaitShutdown();
            LOG.info("{} broker stopped", SERVICE);
            if (!down.isZero()) {
                Thread.sleep(down.toMillis());
            }
            // The same BrokerServer, same config and log directories; its listener was pre-bound
            // by the test kit, whose socket factory binds the same port again once that socket
            // is closed. Returns once the broker has caught up with the metadata log, unfenced.
            broker.startup();
            cluster.waitForReadyBrokers();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(SERVICE + " restart interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(SERVICE + " broker did not become ready", e);
        }
        if (!before.equals(bootstrapServers())) {
            throw new IllegalStateException(
                    SERVICE + " came back on " + bootstrapServers() + " instead of " + before);
        }
        LOG.info("{} broker restarted at {}", SERVICE, bootstrapServers());
    }

    /** The bootstrap servers, for example {@code 127.0.0.1:39123}. */
    public String bootstrapServers() {
        return port == 0 ? cluster.bootstrapServers() : "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        closeQuietly(cluster);
        Files2.deleteRecursively(baseDir);
    }

    private static void closeQuietly(KafkaClusterTestKit cluster) {
        if (cluster == null) {
            return;
        }
        try {
            cluster.close();
        } catch (Exception e) {
            LOG.warn("{} did not stop cleanly", SERVICE, e);
        }
    }
}
