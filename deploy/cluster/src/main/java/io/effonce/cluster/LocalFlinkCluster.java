package io.effonce.cluster;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone Flink session cluster of separate OS processes on 127.0.0.1: one JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and N TaskManagers ({@code TaskManagerRunner}), run from the
 * module's Maven jars or from {@code FLINK_HOME}, configured from deploy/flink-conf. With high
 * availability also a ZooKeeper server and a standby JobManager, each with its own REST port; the
 * REST client follows the leader through ZooKeeper.
 *
 * <p>{@link #start} owns its processes: {@link #close()} stops them all, and so does a shutdown
 * hook if the JVM exits first. {@link #attach} finds a cluster that another JVM started (the
 * command line) through the state file in its work directory. Jobs are driven through {@link
 * #jobs()}.
 */
public final class LocalFlinkCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalFlinkCluster.class);
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private final Path workDir;
    private final int restPort;
    private final boolean highAvailability;
    private final String classpath;
    private final FlinkLauncher launcher;
    private final FlinkRestClient rest;
    private final Thread shutdownHook;
    private final List<FlinkProcess> processes = Collections.synchronizedList(new ArrayList<>());

    private LocalFlinkCluster(Path workDir, int restPort, String classpath, boolean ownsProcesses) {
        this.workDir = workDir;
        this.restPort = restPort;
        this.classpath = classpath;
        this.launcher =
                new FlinkLauncher(
                        classpath, workDir.resolve("conf"), logDir(workDir), marker(workDir));
        this.highAvailability =
                FlinkConfigFile.read(workDir.resolve("conf").resolve("config.yaml"))
                        .get("high-availability.type")
                        .filter(type -> !type.equals("none"))
                        .isPresent();
        this.rest = FlinkRestClient.forConfDir(workDir.resolve("conf"));
        this.shutdownHook =
                ownsProcesses ? new Thread(this::stopProcesses, "flink-cluster-stop") : null;
        if (shutdownHook != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /**
     * Writes the cluster's configuration, starts the JobManager and the TaskManagers, and waits
     * until all TaskManagers are registered. Fails if a cluster from the same work directory is
     * still running.
     */
    public static LocalFlinkCluster start(ClusterSpec spec) {
        Path workDir = spec.workDir();
        Optional<LocalFlinkCluster> running = attach(workDir);
        if (running.isPresent()
                && running.get().processes().stream().anyMatch(FlinkProcess::isAlive)) {
            throw new IllegalStateException(
                    "A cluster from " + workDir + " is still running; stop it first");
        }
        long begin = System.nanoTime();
        // REST and RPC of the first JobManager, ZooKeeper, REST of each further JobManager
        int[] ports = FreePorts.take(2 + spec.jobManagers());
        int restPort = ports[0];
        int zooKeeperPort = ports[2];
        ClusterConfig.write(spec, restPort, ports[1], zooKeeperPort);
        String classpath =
                spec.flinkHome()
                        .map(FlinkLauncher::distributionClasspath)
                        .orElseGet(FlinkLauncher::mavenClasspath);
        LocalFlinkCluster cluster = new LocalFlinkCluster(workDir, restPort, classpath, true);
        try {
            if (spec.highAvailability()) {
                cluster.add(
                        LocalZooKeeper.start(
                                cluster.launcher,
                                workDir.resolve("zookeeper"),
                                zooKeeperPort,
                                spec.startTimeout()));
            }
            for (int i = 0; i < spec.jobManagers(); i++) {
                cluster.add(cluster.launcher.startJobManager(i, i == 0 ? restPort : ports[2 + i]));
            }
            for (int i = 0; i < spec.taskManagers(); i++) {
                cluster.add(cluster.launcher.startTaskManager(i));
            }
            cluster.awaitTaskManagers(spec.taskManagers(), spec.startTimeout());
            if (spec.highAvailability()) {
                cluster.awaitStandbysServing(spec.startTimeout());
            }
        } catch (RuntimeException e) {
            LOG.error(
                    "Cluster did not start; logs in {}. The JobManager's last lines:\n{}",
                    logDir(workDir),
                    lastLines(logDir(workDir).resolve("jobmanager.log"), 40));
            cluster.close();
            throw e;
        }
        LOG.info(
                "Flink cluster up in {} ms: REST {}, {} JobManager(s), {} TaskManagers{}, work dir {}",
                (System.nanoTime() - begin) / 1_000_000,
                cluster.restUri(),
                spec.jobManagers(),
                spec.taskManagers(),
                spec.highAvailability() ? ", ZooKeeper HA on port " + zooKeeperPort : "",
                workDir);
        return cluster;
    }

    /** The cluster another JVM started from {@code workDir}, if its state file is there. */
    public static Optional<LocalFlinkCluster> attach(Path workDir) {
        Path dir = workDir.toAbsolutePath().normalize();
        Optional<Properties> state = ClusterState.read(dir);
        if (state.isEmpty()) {
            return Optional.empty();
        }
        Properties p = state.get();
        LocalFlinkCluster cluster =
                new LocalFlinkCluster(
                        dir,
                        Integer.parseInt(p.getProperty("rest.port")),
                        ClusterState.classpath(dir),
                        false);
        for (String key : p.stringPropertyNames()) {
            if (!key.endsWith(".pid")) {
                continue;
            }
            String name = key.substring(0, key.length() - 4);
            int port = Integer.parseInt(p.getProperty(name + ".port", "0"));
            FlinkProcess.find(Long.parseLong(p.getProperty(key)), marker(dir))
                    .ifPresent(
                            h ->
                                    cluster.processes.add(
                                            new FlinkProcess(
                                                    FlinkProcess.roleOf(name),
                                                    FlinkProcess.indexOf(name),
                                                    h,
                                                    logDir(dir).resolve(name + ".log"),
                                                    port)));
        }
        cluster.processes.sort(
                (a, b) ->
                        a.role() != b.role()
                                ? a.role().compareTo(b.role())
                                : Integer.compare(a.index(), b.index()));
        return Optional.of(cluster);
    }

    public FlinkRestClient rest() {
        return rest;
    }

    /** Job operations (submit, savepoint, rescale, cancel, waits) on this cluster. */
    public FlinkJobs jobs() {
        return new FlinkJobs(this);
    }

    public URI restUri() {
        return rest.baseUri();
    }

    public Path workDir() {
        return workDir;
    }

    /** Where retained checkpoints go ({@code execution.checkpointing.dir}). */
    public Path checkpointDir() {
        return workDir.resolve("checkpoints");
    }

    /** Where savepoints go unless a target is given. */
    public Path savepointDir() {
        return workDir.resolve("savepoints");
    }

    public Path logDir() {
        return logDir(workDir);
    }

    /** The JobManager and every TaskManager started so far (killed ones included, not alive). */
    public List<FlinkProcess> processes() {
        synchronized (processes) {
            return List.copyOf(processes);
        }
    }

    /** True when the cluster runs with ZooKeeper high availability. */
    public boolean highAvailability() {
        return highAvailability;
    }

    /** JobManagers still alive, by index: with high availability the leader and its standbys. */
    public List<FlinkProcess> liveJobManagers() {
        return processes().stream()
                .filter(p -> p.role() == FlinkProcess.Role.JOBMANAGER && p.isAlive())
                .toList();
    }

    /**
     * The JobManager whose REST endpoint leads now (with high availability, the one ZooKeeper
     * names; without, the only one). Fails when no live JobManager serves the leader's port.
     */
    public FlinkProcess leadingJobManager() {
        int port = rest.baseUri().getPort();
        return liveJobManagers().stream()
                .filter(jm -> jm.port() == port)
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "No live JobManager serves the leader's REST port "
                                                + port
                                                + "; live: "
                                                + liveJobManagers()));
    }

    /** Waits until a live JobManager other than {@code former} leads, and returns it. */
    public FlinkProcess awaitNewLeader(FlinkProcess former, Duration timeout) {
        FlinkProcess[] leader = {null};
        await("a JobManager other than %s leading".formatted(former.name()))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(
                        () -> {
                            leader[0] = leadingJobManager();
                            return leader[0].pid() != former.pid();
                        });
        return leader[0];
    }

    /**
     * Waits until every standby JobManager serves its REST port. A standby that died while starting
     * is started once more on a new port, with its log's last lines in a WARN: its port is chosen
     * free and then released for it to bind, and another process on the host (the leader binds
     * ephemeral ports of its own) can take it in between.
     */
    private void awaitStandbysServing(Duration timeout) {
        for (FlinkProcess jm : launchedJobManagers()) {
            if (jm.port() == restPort) {
                continue;
            }
            if (!awaitServing(jm, timeout)) {
                LOG.warn(
                        "Standby {} exited while starting; starting it again on a new port. Its"
                                + " last lines:\n{}",
                        jm,
                        lastLines(jm.logFile(), 20));
                processes.remove(jm);
                FlinkProcess again = startJobManager();
                if (!awaitServing(again, timeout)) {
                    throw new IllegalStateException(
                            "Standby " + again + " exited while starting; see " + again.logFile());
                }
            }
        }
    }

    private List<FlinkProcess> launchedJobManagers() {
        return processes().stream().filter(p -> p.role() == FlinkProcess.Role.JOBMANAGER).toList();
    }

    /** True once {@code jm} accepts connections on its REST port; false if it exits first. */
    private static boolean awaitServing(FlinkProcess jm, Duration timeout) {
        await("JobManager " + jm + " serving REST on port " + jm.port())
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> !jm.isAlive() || accepts(jm.port()));
        return jm.isAlive();
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Starts one more JobManager with the next free index: with high availability a standby on a
     * port of its own; without, a replacement on the cluster's REST port (it knows nothing of the
     * jobs the dead one ran). Does not wait for it.
     */
    public FlinkProcess startJobManager() {
        int next = nextIndex(FlinkProcess.Role.JOBMANAGER);
        FlinkProcess jm =
                launcher.startJobManager(next, highAvailability ? FreePorts.take(1)[0] : restPort);
        add(jm);
        return jm;
    }

    /**
     * The next unused index of a role: above every process known and every log file written, so a
     * process started by a later command never takes over the log of one killed before.
     */
    private int nextIndex(FlinkProcess.Role role) {
        int next =
                processes().stream()
                        .filter(p -> p.role() == role)
                        .mapToInt(p -> p.index() + 1)
                        .max()
                        .orElse(0);
        try (Stream<Path> logs = Files.list(logDir())) {
            int fromLogs =
                    logs.map(f -> f.getFileName().toString())
                            .filter(n -> n.endsWith(".log"))
                            .map(n -> n.substring(0, n.length() - ".log".length()))
                            .filter(n -> FlinkProcess.roleOf(n) == role)
                            .mapToInt(n -> FlinkProcess.indexOf(n) + 1)
                            .max()
                            .orElse(0);
            return Math.max(next, fromLogs);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills this JobManager with SIGKILL ({@code kill -9}) and waits until it is gone. */
    public void killJobManager(FlinkProcess jobManager) {
        jobManager.kill();
        writeState();
    }

    /** TaskManagers still alive, by index. */
    public List<FlinkProcess> liveTaskManagers() {
        return processes().stream()
                .filter(p -> p.role() == FlinkProcess.Role.TASKMANAGER && p.isAlive())
                .toList();
    }

    /** The TaskManager with this index. */
    public FlinkProcess taskManager(int index) {
        return processes().stream()
                .filter(p -> p.role() == FlinkProcess.Role.TASKMANAGER && p.index() == index)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No TaskManager " + index));
    }

    /** The TaskManager with this Flink resource id ({@code tm-<index>}). */
    public FlinkProcess taskManager(String resourceId) {
        return taskManager(Integer.parseInt(resourceId.substring(resourceId.indexOf('-') + 1)));
    }

    /** Starts one more TaskManager with the next free index; does not wait for it to register. */
    public FlinkProcess startTaskManager() {
        int next = nextIndex(FlinkProcess.Role.TASKMANAGER);
        FlinkProcess tm = launcher.startTaskManager(next);
        add(tm);
        return tm;
    }

    /**
     * Kills TaskManager {@code index} with SIGKILL ({@code kill -9}) and waits until it is gone.
     */
    public FlinkProcess killTaskManager(int index) {
        FlinkProcess tm = taskManager(index);
        tm.kill();
        writeState();
        return tm;
    }

    /** Waits until exactly {@code count} TaskManagers are registered at the JobManager. */
    public void awaitTaskManagers(int count, Duration timeout) {
        // not restUri() in the message: with HA it waits for a leader, which this wait is for
        await("%d TaskManagers registered at the cluster of %s".formatted(count, workDir))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> rest.taskManagerIds().size() == count);
    }

    /**
     * Waits until every slot of the registered TaskManagers is free. After a JobManager without
     * high availability died, its job's tasks run on until the TaskManagers notice; a freed slot
     * means its tasks have terminated, so nothing of the lost job writes any more.
     */
    public void awaitAllSlotsFree(Duration timeout) {
        await(
                        "every task slot free (no task of a lost job left) at the cluster of %s"
                                .formatted(workDir))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(
                        () -> {
                            FlinkRestClient.SlotCount slots = rest.slots();
                            return slots.total() > 0 && slots.free() == slots.total();
                        });
    }

    /**
     * Leaves the processes running when this JVM exits (the command line's {@code start}); a later
     * {@link #attach} finds them through the state file.
     */
    public void detach() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalArgumentException alreadyRemoved) {
                // detached before
            }
        }
    }

    /** Stops every process (SIGTERM, then SIGKILL after 10 s) and removes the state file. */
    public void stop() {
        // first: with HA the client's ZooKeeper session would outlive the ZooKeeper process
        rest.close();
        stopProcesses();
        ClusterState.delete(workDir);
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException | IllegalArgumentException goneOrRunning) {
                // the JVM is shutting down, or detach() removed the hook already
            }
        }
    }

    @Override
    public void close() {
        stop();
    }

    private void stopProcesses() {
        List<FlinkProcess> all = new ArrayList<>(processes());
        Collections.reverse(all); // TaskManagers first, then JobManagers, ZooKeeper last
        all.stream().filter(FlinkProcess::isAlive).forEach(p -> p.stop(STOP_GRACE));
    }

    private void add(FlinkProcess process) {
        processes.add(process);
        writeState();
    }

    private void writeState() {
        ClusterState.write(
                workDir,
                restPort,
                classpath,
                processes().stream().filter(FlinkProcess::isAlive).toList());
    }

    private static String lastLines(Path file, int n) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    private static Path logDir(Path workDir) {
        return workDir.resolve("log");
    }

    /** A JVM flag on every process of this cluster, so a pid is only trusted if it carries it. */
    static String marker(Path workDir) {
        return "-Deffonce.cluster.dir=" + workDir;
    }
}
