package io.effonce.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The processes of one local cluster, as its state file records them: every one started so far
 * (killed ones included), the live ones by role, and the next index a new one of a role takes.
 * Every change is written to the state file, so a later command ({@link LocalFlinkCluster#attach})
 * finds the same processes.
 */
final class ClusterProcesses {

    private final Path workDir;
    private final int restPort;
    private final String classpath;
    private final List<FlinkProcess> processes = Collections.synchronizedList(new ArrayList<>());

    ClusterProcesses(Path workDir, int restPort, String classpath) {
        this.workDir = workDir;
        this.restPort = restPort;
        this.classpath = classpath;
    }

    /** The processes of the state file {@code state} that still run, ordered by role and index. */
    static ClusterProcesses restored(Path workDir, Properties state) {
        ClusterProcesses restored =
                new ClusterProcesses(
                        workDir,
                        Integer.parseInt(state.getProperty("rest.port")),
                        ClusterState.classpath(workDir));
        for (String key : state.stringPropertyNames()) {
            if (!key.endsWith(".pid")) {
                continue;
            }
            String name = key.substring(0, key.length() - 4);
            int port = Integer.parseInt(state.getProperty(name + ".port", "0"));
            FlinkProcess.find(
                            Long.parseLong(state.getProperty(key)),
                            LocalFlinkCluster.marker(workDir))
                    .ifPresent(
                            h ->
                                    restored.processes.add(
                                            new FlinkProcess(
                                                    FlinkProcess.roleOf(name),
                                                    FlinkProcess.indexOf(name),
                                                    h,
                                                    restored.logDir().resolve(name + ".log"),
                                                    port)));
        }
        restored.processes.sort(
                Comparator.comparing(FlinkProcess::role).thenComparingInt(FlinkProcess::index));
        return restored;
    }

    int restPort() {
        return restPort;
    }

    String classpath() {
        return classpath;
    }

    Path logDir() {
        return workDir.resolve("log");
    }

    List<FlinkProcess> all() {
        synchronized (processes) {
            return List.copyOf(processes);
        }
    }

    /** Every process of {@code role} started so far, dead or alive. */
    List<FlinkProcess> of(FlinkProcess.Role role) {
        return all().stream().filter(p -> p.role() == role).toList();
    }

    /** The live processes of {@code role}, by index. */
    List<FlinkProcess> live(FlinkProcess.Role role) {
        return of(role).stream().filter(FlinkProcess::isAlive).toList();
    }

    /** The process of {@code role} with this index. */
    FlinkProcess get(FlinkProcess.Role role, int index) {
        return of(role).stream()
                .filter(p -> p.index() == index)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No " + role + " " + index));
    }

    void add(FlinkProcess process) {
        processes.add(process);
        recordLive();
    }

    void remove(FlinkProcess process) {
        processes.remove(process);
        recordLive();
    }

    /** Writes the live processes to the state file (after a kill, say). */
    void recordLive() {
        ClusterState.write(
                workDir,
                restPort,
                classpath,
                all().stream().filter(FlinkProcess::isAlive).toList());
    }

    /** Stops every live process: TaskManagers first, then JobManagers, ZooKeeper last. */
    void stopAll(Duration grace) {
        List<FlinkProcess> all = new ArrayList<>(all());
        Collections.reverse(all);
        all.stream().filter(FlinkProcess::isAlive).forEach(p -> p.stop(grace));
    }

    /**
     * The next unused index of a role: above every process known and every log file written, so a
     * process started by a later command never takes over the log of one killed before.
     */
    int nextIndex(FlinkProcess.Role role) {
        int next = of(role).stream().mapToInt(p -> p.index() + 1).max().orElse(0);
        try (Stream<Path> logs = Files.list(logDir())) {
            int fromLogs =
                    logs.map(f -> f.getFileName().toString())
                            .filter(n -> n.endsWith(".log"))
                            .map(n -> n.substring(0, n.length() - ".log".length()))
                            // Not every log there is a process's (sql-client.log).
                            .filter(n -> n.matches("(jobmanager|taskmanager)-\\d+"))
                            .filter(n -> FlinkProcess.roleOf(n) == role)
                            .mapToInt(n -> FlinkProcess.indexOf(n) + 1)
                            .max()
                            .orElse(0);
            return Math.max(next, fromLogs);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
