package io.effonce.cluster;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
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
    private final boolean highAvailability;
    private final FlinkLauncher launcher;
    private final FlinkRestClient rest;
    private final Thread shutdownHook;
    private final ClusterProcesses processes;

    private LocalFlinkCluster(Path workDir, ClusterProcesses processes, boolean ownsProcesses) {
        this.workDir = workDir;
        this.processes = processes;
        this.launcher =
                new FlinkLauncher(
                        processes.classpath(),
                        workDir.resolve("conf"),
                        processes.logDir(),
                        marker(workDir));
        this.highAvailability =
                FlinkConfigFile.read(workDir.resolve("conf").resolve("config.yaml"))
                        .get("high-availability.type")
                        .filter(type -> !type.equals("none"))
                        .isPresent();
        this.rest = FlinkRestClient.forConfDir(workDir.resolve("conf"));
        this.shutdownHook =
                ownsProcesses
                        ? new Thread(() -> processes.stopAll(STOP_GRACE), "flink-cluster-stop")
                        : null;
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
        LocalFlinkCluster cluster =
                new LocalFlinkCluster(
                        workDir, new ClusterProcesses(workDir, restPort, classpath), true);
        try {
            if (spec.highAvailability()) {
                cluster.processes.add(
                        LocalZooKeeper.start(
                                cluster.launcher,
                                workDir.resolve("zookeeper"),
                                zooKeeperPort,
                                spec.startTimeout()));
            }
            for (int i = 0; i < spec.jobManagers(); i++) {
                cluster.processes.add(
                        cluster.launcher.startJobManager(i, i == 0 ? restPort : ports[2 + i]));
            }
            for (int i = 0; i < spec.taskManagers(); i++) {
                cluster.processes.add(cluster.launcher.startTaskManager(i));
            }
            cluster.awaitTaskManagers(spec.taskManagers(), spec.startTimeout());
            if (spec.highAvailability()) {
                cluster.awaitStandbysServing(spec.startTimeout());
            }
        } catch (RuntimeException e) {
            LOG.error(
                    "Cluster did not start; logs in {}. The JobManager's last lines:\n{}",
                    cluster.logDir(),
                    lastLines(cluster.logDir().resolve("jobmanager.log"), 40));
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
        return Optional.of(
                new LocalFlinkCluster(dir, ClusterProcesses.restored(dir, state.get()), false));
    }

    public FlinkRestClient rest() {
        return rest;
    }

    /** Job operations (submit, savepoint, rescale, cancel, waits) on this cluster. */
    public FlinkJobs jobs() {
        return new FlinkJobs(this);
    }

    /**
     * A job jar's {@code main} as a process of its own on this cluster's Flink class path, not
     * submitted: what {@code --help} of a job needs.
     */
    public ProcessBuilder runLocally(Path jar, String entryClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add(
                "-Dlog4j.configurationFile=file:"
                        + workDir.resolve("conf").resolve("log4j-console.properties"));
        cmd.add("-classpath");
        // Flink first, as in the JobManager (its classes are loaded parent-first there).
        cmd.add(ClusterState.classpath(workDir) + ":" + jar.toAbsolutePath());
        cmd.add(entryClass);
        cmd.addAll(args);
        return new ProcessBuilder(cmd);
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
        return processes.logDir();
    }

    /** The JobManager and every TaskManager started so far (killed ones included, not alive). */
    public List<FlinkProcess> processes() {
        return processes.all();
    }

    /** True when the cluster runs with ZooKeeper high availability. */
    public boolean highAvailability() {
        return highAvailability;
    }

    /** JobManagers still alive, by index: with high availability the leader and its standbys. */
    public List<FlinkProcess> liveJobManagers() {
        return processes.live(FlinkProcess.Role.JOBMANAGER);
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
        for (FlinkProcess jm : processes.of(FlinkProcess.Role.JOBMANAGER)) {
            if (jm.port() == processes.restPort()) {
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
        int next = processes.nextIndex(FlinkProcess.Role.JOBMANAGER);
        FlinkProcess jm =
                launcher.startJobManager(
                        next, highAvailability ? FreePorts.take(1)[0] : processes.restPort());
        processes.add(jm);
        return jm;
    }

    /** Kills this JobManager with SIGKILL ({@code kill -9}) and waits until it is gone. */
    public void killJobManager(FlinkProcess jobManager) {
        jobManager.kill();
        processes.recordLive();
    }

    /** TaskManagers still alive, by index. */
    public List<FlinkProcess> liveTaskManagers() {
        return processes.live(FlinkProcess.Role.TASKMANAGER);
    }

    /** The TaskManager with this index. */
    public FlinkProcess taskManager(int index) {
        return processes.get(FlinkProcess.Role.TASKMANAGER, index);
    }

    /** The TaskManager with this Flink resource id ({@code tm-<index>}). */
    public FlinkProcess taskManager(String resourceId) {
        return taskManager(Integer.parseInt(resourceId.substring(resourceId.indexOf('-') + 1)));
    }

    /** Starts one more TaskManager with the next free index; does not wait for it to register. */
    public FlinkProcess startTaskManager() {
        FlinkProcess tm =
                launcher.startTaskManager(processes.nextIndex(FlinkProcess.Role.TASKMANAGER));
        processes.add(tm);
        return tm;
    }

    /**
     * Kills TaskManager {@code index} with SIGKILL ({@code kill -9}) and waits until it is gone.
     */
    public FlinkProcess killTaskManager(int index) {
        FlinkProcess tm = taskManager(index);
        tm.kill();
        processes.recordLive();
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
        processes.stopAll(STOP_GRACE);
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

    private static String lastLines(Path file, int n) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    /** A JVM flag on every process of this cluster, so a pid is only trusted if it carries it. */
    static String marker(Path workDir) {
        return "-Deffonce.cluster.dir=" + workDir;
    }
}
