package io.effonce.cluster;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The single ZooKeeper server of a high-availability {@link LocalFlinkCluster}: its own process,
 * started from Flink's class path the way Flink's bin/start-zookeeper-quorum.sh does, so it
 * outlives the JVM that started the cluster (the command line's {@code start}) and dies only when
 * told. Production runs an ensemble of three or five (deploy/cluster/README.md).
 */
final class LocalZooKeeper {

    private LocalZooKeeper() {}

    /**
     * Writes {@code <dir>/zoo.cfg}, starts the server on {@code 127.0.0.1:clientPort} with its data
     * in {@code <dir>/data}, and waits until it answers {@code ruok}.
     */
    static FlinkProcess start(FlinkLauncher launcher, Path dir, int clientPort, Duration timeout) {
        Path config = dir.resolve("zoo.cfg");
        try {
            Files.createDirectories(dir.resolve("data"));
            Files.writeString(config, zooCfg(dir.resolve("data"), clientPort));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FlinkProcess server = launcher.startZooKeeper(config, clientPort);
        await(
                        "ZooKeeper answering on 127.0.0.1:%d (log %s)"
                                .formatted(clientPort, server.logFile()))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> server.isAlive() && isServing(clientPort));
        if (!server.isAlive()) {
            throw new IllegalStateException("ZooKeeper exited; see " + server.logFile());
        }
        return server;
    }

    /**
     * The server's configuration. A 500 ms tick lets Flink ask for sessions as short as 1 s (the
     * tests' fast failover asks for 4 s); the longest is Flink's default of 60 s.
     */
    static String zooCfg(Path dataDir, int clientPort) {
        return String.join(
                "\n",
                "# Written by effonce-cluster for one local, single-server ZooKeeper.",
                "tickTime=500",
                "minSessionTimeout=1000",
                "maxSessionTimeout=60000",
                "initLimit=10",
                "syncLimit=5",
                "dataDir=" + dataDir,
                "clientPort=" + clientPort,
                "clientPortAddress=127.0.0.1",
                "maxClientCnxns=0",
                "admin.enableServer=false",
                "4lw.commands.whitelist=ruok,srvr",
                "");
    }

    /** True when a ZooKeeper server on the port answers the four-letter word {@code ruok}. */
    static boolean isServing(int clientPort) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", clientPort), 1_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write("ruok".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return "imok".equals(new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return false;
        }
    }
}
