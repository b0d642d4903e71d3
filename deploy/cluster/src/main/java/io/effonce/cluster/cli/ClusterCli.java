package io.effonce.cluster.cli;

import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.LocalFlinkCluster;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;

/**
 * {@code flink-local}: starts, inspects and stops a local multi-process Flink cluster, and drives
 * jobs on it ({@link JobCommands}). Every command finds the cluster through the state file in
 * {@code --work-dir}, so {@code start} and the later commands run in separate JVMs.
 */
@Command(
        name = "flink-local",
        mixinStandardHelpOptions = true,
        description = "A local multi-process Flink cluster (one JobManager, N TaskManagers).",
        subcommands = {
            ClusterCli.Start.class,
            ClusterCli.Stop.class,
            ClusterCli.Status.class,
            ClusterCli.KillTaskManager.class,
            ClusterCli.StartTaskManager.class,
            ClusterCli.KillJobManager.class,
            ClusterCli.StartJobManager.class,
            JobCommands.Submit.class,
            JobCommands.Savepoint.class,
            JobCommands.StopJob.class,
            JobCommands.Cancel.class,
            JobCommands.Rescale.class,
            SqlCommand.class
        })
public final class ClusterCli {

    @Option(
            names = "--work-dir",
            scope = ScopeType.INHERIT,
            defaultValue = "${env:EFFONCE_FLINK_WORK_DIR:-target/flink-local}",
            description = "The cluster's work directory (default: ${DEFAULT-VALUE}).")
    Path workDir;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ClusterCli()).execute(args));
    }

    LocalFlinkCluster cluster() {
        return LocalFlinkCluster.attach(workDir)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "No cluster in "
                                                + workDir.toAbsolutePath()
                                                + "; run start first"));
    }

    @Command(
            name = "start",
            description = "Start a JobManager and N TaskManagers; wait until registered.")
    static final class Start implements Callable<Integer> {
        @CommandLine.ParentCommand ClusterCli parent;

        @Option(
                names = "--taskmanagers",
                defaultValue = "2",
                description = "TaskManagers (default 2).")
        int taskManagers;

        @Option(
                names = "--slots",
                defaultValue = "2",
                description = "Slots per TaskManager (default 2).")
        int slots;

        @Option(
                names = "--fast-failover",
                description = "Short heartbeats and restart backoff, as the tests use.")
        boolean fastFailover;

        @Option(
                names = "--high-availability",
                description =
                        "ZooKeeper high availability: a ZooKeeper server and a standby JobManager"
                                + " beside the leader.")
        boolean highAvailability;

        @Option(
                names = {"-D", "--config"},
                description = "A Flink configuration value, key=value (repeatable).")
        Map<String, String> config = new LinkedHashMap<>();

        @Override
        public Integer call() {
            ClusterSpec.Builder spec =
                    ClusterSpec.builder(parent.workDir)
                            .taskManagers(taskManagers)
                            .slotsPerTaskManager(slots);
            if (fastFailover) {
                spec.fastFailover();
            }
            if (highAvailability) {
                spec.highAvailability();
            }
            config.forEach(spec::config);
            LocalFlinkCluster cluster = LocalFlinkCluster.start(spec.build());
            cluster.detach();
            System.out.printf(
                    "Flink cluster running: REST %s, %d TaskManagers%s, logs in %s%n",
                    cluster.restUri(),
                    taskManagers,
                    highAvailability ? ", ZooKeeper HA with a standby JobManager" : "",
                    cluster.logDir());
            return 0;
        }
    }

    @Command(name = "stop", description = "Stop every process of the cluster.")
    static final class Stop implements Callable<Integer> {
        @CommandLine.ParentCommand ClusterCli parent;

        @Override
        public Integer call() {
            var cluster = LocalFlinkCluster.attach(parent.workDir);
            if (cluster.isEmpty()) {
                System.out.println("No cluster in " + parent.workDir.toAbsolutePath());
                return 0;
            }
            int count =
                    (int) cluster.get().processes().stream().filter(FlinkProcess::isAlive).count();
            cluster.get().stop();
            System.out.printf("Stopped %d processes%n", count);
            return 0;
        }
    }

    @Command(name = "status", description = "Processes, registered TaskManagers and jobs.")
    static final class Status implements Callable<Integer> {
        @CommandLine.ParentCommand ClusterCli parent;

        @Override
        public Integer call() {
            LocalFlinkCluster cluster = parent.cluster();
            System.out.println("Work dir " + cluster.workDir());
            for (FlinkProcess p : cluster.processes()) {
                System.out.printf(
                        "  %-16s pid %-8d %s%n", p.name(), p.pid(), p.isAlive() ? "alive" : "gone");
            }
            try {
                // the leading JobManager's endpoint: with HA it may be failing over right now
                System.out.println("REST " + cluster.restUri());
                System.out.println("Registered TaskManagers: " + cluster.rest().taskManagerIds());
                cluster.rest()
                        .jobs()
                        .forEach(
                                (id, state) -> {
                                    var cp = cluster.rest().checkpoints(id);
                                    System.out.printf(
                                            "  job %s %s, checkpoints completed %d, in progress %d, restored %d%n",
                                            id,
                                            state,
                                            cp.completed(),
                                            cp.inProgress(),
                                            cp.restored());
                                });
            } catch (RuntimeException e) {
                System.out.println("REST API not answering: " + e.getMessage());
                return 1;
            }
            return 0;
        }
    }

    @Command(
            name = "kill-tm",
            description = "kill -9 a TaskManager (default: the lowest live index).")
    static final class KillTaskManager implements Callable<Integer> {
        @CommandLine.ParentCommand ClusterCli parent;

        @Parameters(arity = "0..1", description = "TaskManager index.")
        Integer index;

        @Override
        public Integer call() {
            LocalFlinkCluster cluster = parent.cluster();
            List<FlinkProcess> live = cluster.liveTaskManagers();
            if (live.isEmpty()) {
                System.err.println("No live TaskManager");
                return 1;
            }
            FlinkProcess killed =
                    cluster.killTaskManager(index == null ? live.get(0).index() : index);
            System.out.printf("Killed %s (pid %d)%n", killed.name(), killed.pid());
            return 0;
        }
    }

    @Command(
            name = "kill-jm",
            description =
                    "kill -9 the leading JobManager. With HA a standby takes over the jobs;"
                            + " without, they are lost.")
    static final class KillJobManager implements Callable<Integer> {
        @CommandLine.ParentCommand ClusterCli parent;

        @Override
        public Integer call() {
            LocalFlinkCluster cluster = parent.cluster();
            FlinkProcess leader = cluster.leadingJobManager();
            cluster.killJobManager(leader);
            System.out.printf(
                    "Killed %s (pid %d); start a %s with start-jm%n",
                    leader.name(),
                    leader.pid(),
                    cluster.highAvailability() ? "new standby" : "replacement");
            return 0;
        }
    }

    @Command(
            name = "start-jm",
            description =
                    "Start one more JobManager: with HA a standby, without a replacement that"
                            + " knows no jobs.")
    static final class StartJobManager implements Callable<Integer> {
        @CommandLine.ParentCommand ClusterCli parent;

        @Override
        public Integer call() {
            FlinkProcess jm = parent.cluster().startJobManager();
            System.out.printf(
                    "Started %s (pid %d, REST port %d)%n", jm.name(), jm.pid(), jm.port());
            return 0;
        }
    }

    @Command(name = "start-tm", description = "Start one more TaskManager.")
    static final class StartTaskManager implements Callable<Integer> {
        @CommandLine.ParentCommand ClusterCli parent;

        @Override
        public Integer call() {
            FlinkProcess tm = parent.cluster().startTaskManager();
            System.out.printf("Started %s (pid %d)%n", tm.name(), tm.pid());
            return 0;
        }
    }
}
