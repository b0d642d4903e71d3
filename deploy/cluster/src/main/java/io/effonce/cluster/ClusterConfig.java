package io.effonce.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A local cluster's {@code conf/config.yaml}: the project's Flink configuration
 * (deploy/flink-conf), the cluster's ports and directories under its work directory, ZooKeeper high
 * availability when asked for, and the spec's own overrides last.
 */
final class ClusterConfig {

    private ClusterConfig() {}

    /** Creates the work directory's folders and writes the configuration into its {@code conf}. */
    static void write(ClusterSpec spec, int restPort, int rpcPort, int zooKeeperPort) {
        Path dir = spec.workDir();
        try {
            for (String sub :
                    List.of("log", "tmp", "upload", "work", "checkpoints", "savepoints")) {
                Files.createDirectories(dir.resolve(sub));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FlinkConfigFile.projectDefault()
                .set("rest.port", Integer.toString(restPort))
                .set("jobmanager.rpc.port", Integer.toString(rpcPort))
                .set("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString())
                .set(
                        "execution.checkpointing.savepoint-dir",
                        dir.resolve("savepoints").toUri().toString())
                .set("io.tmp.dirs", dir.resolve("tmp").toString())
                .set("web.upload.dir", dir.resolve("upload").toString())
                .set("process.working-dir", dir.resolve("work").toString())
                .setAll(spec.highAvailability() ? highAvailability(dir, zooKeeperPort) : Map.of())
                .setAll(spec.effectiveOverrides())
                .writeTo(dir.resolve("conf"));
    }

    /**
     * ZooKeeper high availability: leader election, the job graphs and the completed checkpoints'
     * pointers in ZooKeeper, their data under {@code ha/}; a JobManager's RPC port is chosen freely
     * ({@code high-availability.jobmanager.port} 0), as two share the host.
     */
    private static Map<String, String> highAvailability(Path dir, int zooKeeperPort) {
        Map<String, String> ha = new LinkedHashMap<>();
        ha.put("high-availability.type", "zookeeper");
        ha.put("high-availability.zookeeper.quorum", "127.0.0.1:" + zooKeeperPort);
        ha.put("high-availability.storageDir", dir.resolve("ha").toUri().toString());
        ha.put("high-availability.cluster-id", "/effonce-local");
        ha.put("high-availability.jobmanager.port", "0");
        // the local server has no SASL; without this every client logs "Authentication failed"
        ha.put("zookeeper.sasl.disable", "true");
        return ha;
    }
}
