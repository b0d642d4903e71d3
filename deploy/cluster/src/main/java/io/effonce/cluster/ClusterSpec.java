package io.effonce.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link LocalFlinkCluster} looks like: its work directory, how many TaskManagers with how
 * many slots, configuration overrides on top of deploy/flink-conf/config.yaml, and where Flink
 * comes from (the module's Maven jars, or {@code FLINK_HOME} when that is set). Build with {@link
 * #builder(Path)}.
 *
 * @param workDir everything the cluster writes goes under it: conf/, log/, checkpoints/,
 *     savepoints/, tmp/ and the state file that lets a later command find the processes
 * @param taskManagers TaskManagers started with the cluster
 * @param slotsPerTaskManager {@code taskmanager.numberOfTaskSlots}
 * @param fastFailover short heartbeats, quick restarts and fresh REST statistics, for tests
 * @param highAvailability ZooKeeper high availability: a ZooKeeper server process, HA storage under
 *     the work directory, and a standby JobManager beside the leader
 * @param overrides configuration values that replace the project's (applied last)
 * @param flinkHome a Flink distribution whose lib/ to run from, instead of the Maven jars
 * @param startTimeout how long start waits for the REST API and the TaskManagers
 */
public record ClusterSpec(
        Path workDir,
        int taskManagers,
        int slotsPerTaskManager,
        boolean fastFailover,
        boolean highAvailability,
        Map<String, String> overrides,
        Optional<Path> flinkHome,
        Duration startTimeout) {

    /**
     * What {@link Builder#fastFailover()} sets: a killed TaskManager is declared dead within about
     * 2 to 5 s, restarts back off at most 5 s, and the REST API shows checkpoint statistics at most
     * 100 ms old (the chaos tests watch for a checkpoint in progress).
     */
    public static final Map<String, String> FAST_FAILOVER =
            Map.of(
                    "heartbeat.interval", "1s",
                    "heartbeat.timeout", "5s",
                    "restart-strategy.exponential-delay.initial-backoff", "500ms",
                    "restart-strategy.exponential-delay.max-backoff", "5s",
                    "restart-strategy.exponential-delay.reset-backoff-threshold", "30s",
                    "restart-strategy.exponential-delay.attempts-before-reset-backoff", "1000",
                    "rest.cache.checkpoint-statistics.timeout", "100ms",
                    "web.refresh-interval", "500ms");

    /**
     * What {@link Builder#fastFailover()} adds with high availability: a killed JobManager's
     * ZooKeeper session, and with it its leadership, expires after 4 s instead of 60 s (the
     * connection timeout follows, as Curator warns when it is longer than the session).
     */
    public static final Map<String, String> FAST_HA_FAILOVER =
            Map.of(
                    "high-availability.zookeeper.client.session-timeout", "4s",
                    "high-availability.zookeeper.client.connection-timeout", "4s");

    /**
     * What {@link Builder#quickStartJvms()} gives the JobManagers and TaskManagers: the client
     * compiler only. A test's or the demo's cluster lives for a minute; on a small machine the
     * server compiler's work on every new process competes with the job itself (measured on a
     * 2-core machine: the three JobManager failovers of it-tests 204 s, 116 s with this). A cluster
     * that runs for hours, or a benchmark, wants the server compiler: the default.
     */
    public static final String QUICK_START_JVM = "-XX:TieredStopAtLevel=1";

    public ClusterSpec {
        if (taskManagers < 0) {
            throw new IllegalArgumentException("taskManagers must be >= 0, was " + taskManagers);
        }
        if (slotsPerTaskManager < 1) {
            throw new IllegalArgumentException(
                    "slotsPerTaskManager must be >= 1, was " + slotsPerTaskManager);
        }
        workDir = workDir.toAbsolutePath().normalize();
        overrides = Map.copyOf(overrides);
    }

    /** JobManagers started with the cluster: the leader, and with high availability a standby. */
    public int jobManagers() {
        return highAvailability ? 2 : 1;
    }

    /** A builder for a cluster working under {@code workDir}. */
    public static Builder builder(Path workDir) {
        return new Builder(workDir);
    }

    /** The overrides in the order they are applied: fast-failover preset first, then own ones. */
    Map<String, String> effectiveOverrides() {
        Map<String, String> all = new LinkedHashMap<>();
        if (fastFailover) {
            all.putAll(FAST_FAILOVER);
            if (highAvailability) {
                all.putAll(FAST_HA_FAILOVER);
            }
        }
        all.put("taskmanager.numberOfTaskSlots", Integer.toString(slotsPerTaskManager));
        all.putAll(overrides);
        return all;
    }

    /** Builds a {@link ClusterSpec}; defaults: 2 TaskManagers with 2 slots, Flink from Maven. */
    public static final class Builder {
        private final Path workDir;
        private int taskManagers = 2;
        private int slots = 2;
        private boolean fastFailover;
        private boolean highAvailability;
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private Optional<Path> flinkHome = flinkHomeFromEnvironment();
        private Duration startTimeout = Duration.ofMinutes(3);

        private Builder(Path workDir) {
            this.workDir = workDir;
        }

        public Builder taskManagers(int count) {
            this.taskManagers = count;
            return this;
        }

        public Builder slotsPerTaskManager(int count) {
            this.slots = count;
            return this;
        }

        /** Applies {@link ClusterSpec#FAST_FAILOVER}. */
        public Builder fastFailover() {
            this.fastFailover = true;
            return this;
        }

        /** Starts the JobManagers and TaskManagers with {@link ClusterSpec#QUICK_START_JVM}. */
        public Builder quickStartJvms() {
            overrides.put("env.java.opts.jobmanager", QUICK_START_JVM);
            overrides.put("env.java.opts.taskmanager", QUICK_START_JVM);
            return this;
        }

        /**
         * ZooKeeper high availability: a ZooKeeper server as its own process, and a standby
         * JobManager that takes over the jobs when the leader dies.
         */
        public Builder highAvailability() {
            this.highAvailability = true;
            return this;
        }

        /** Sets one Flink configuration value (e.g. {@code execution.checkpointing.interval}). */
        public Builder config(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /** Runs Flink from this distribution's lib/ ({@code null}: from the Maven jars). */
        public Builder flinkHome(Path home) {
            this.flinkHome = Optional.ofNullable(home);
            return this;
        }

        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        public ClusterSpec build() {
            flinkHome.ifPresent(
                    home -> {
                        if (!home.resolve("lib").toFile().isDirectory()) {
                            throw new IllegalArgumentException(
                                    "FLINK_HOME "
                                            + home
                                            + " has no lib/ directory; unset FLINK_HOME to run"
                                            + " Flink from the Maven jars");
                        }
                    });
            return new ClusterSpec(
                    workDir,
                    taskManagers,
                    slots,
                    fastFailover,
                    highAvailability,
                    overrides,
                    flinkHome,
                    startTimeout);
        }

        private static Optional<Path> flinkHomeFromEnvironment() {
            String home = System.getenv("FLINK_HOME");
            return home == null || home.isBlank() ? Optional.empty() : Optional.of(Path.of(home));
        }
    }
}
