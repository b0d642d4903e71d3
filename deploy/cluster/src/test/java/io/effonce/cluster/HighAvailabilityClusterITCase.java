package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cluster.cli.ClusterCli;
import io.effonce.cluster.testjob.CountingJob;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The high-availability cluster driven through the command line as a user would: {@code start
 * --high-availability} (a ZooKeeper server, a leader and a standby JobManager), {@code kill-jm} of
 * the leader while a checkpoint is in progress, {@code start-jm} of a new standby, {@code stop}.
 * The standby takes over the counting job — same job id — from a checkpoint at least as new as the
 * last one completed before the kill, and the REST client follows the new leader through ZooKeeper.
 */
// it-tests' JobManagerKilledWithHighAvailabilityITCase drives the same failover every time; the
// command-line variant runs with -Deffonce.soak=true (the root pom's "long").
@Tag("long")
class HighAvailabilityClusterITCase {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @TempDir Path workDir;

    @Test
    void theStandbyTakesOverTheJobWhenTheLeaderIsKilledMidCheckpoint() {
        cli(
                "start",
                "--high-availability",
                "--fast-failover",
                "--taskmanagers",
                "1",
                "-D",
                "execution.checkpointing.interval=500ms");
        LocalFlinkCluster cluster = LocalFlinkCluster.attach(workDir).orElseThrow();
        try {
            assertThat(cluster.highAvailability()).isTrue();
            assertThat(cluster.liveJobManagers()).hasSize(2);
            assertThat(cluster.processes())
                    .anyMatch(p -> p.role() == FlinkProcess.Role.ZOOKEEPER && p.isAlive());

            FlinkJobs jobs = cluster.jobs();
            String jobId =
                    jobs.submit(
                            JobSubmission.of(
                                    Path.of(System.getProperty("effonce.testjob.jar")),
                                    CountingJob.class.getName(),
                                    "500"));
            jobs.awaitAllTasksRunning(jobId);
            jobs.awaitCompletedCheckpoints(jobId, 2);
            FlinkProcess leader = cluster.leadingJobManager();
            jobs.awaitCheckpointInProgress(jobId, TIMEOUT);
            long completedBefore = cluster.rest().checkpoints(jobId).latestCompletedId();

            cli("kill-jm");
            cli("start-jm");
            LocalFlinkCluster after = LocalFlinkCluster.attach(workDir).orElseThrow();
            FlinkProcess newLeader = cluster.awaitNewLeader(leader, TIMEOUT);
            CheckpointStats restored = jobs.awaitRestoredAndRunning(jobId, 0, TIMEOUT);

            assertThat(leader.isAlive()).isFalse();
            assertThat(after.liveJobManagers())
                    .as("the new standby has a name (and log) of its own")
                    .noneMatch(jm -> jm.name().equals(leader.name()));
            assertThat(after.liveJobManagers().stream().map(FlinkProcess::pid))
                    .hasSize(2)
                    .contains(newLeader.pid());
            assertThat(cluster.rest().jobs()).containsOnlyKeys(jobId);
            assertThat(restored.latestRestoredId()).isGreaterThanOrEqualTo(completedBefore);
            assertThat(restored.latestRestoredIsSavepoint()).isFalse();
            jobs.awaitCheckpointAfter(jobId, restored.latestRestoredId());
        } finally {
            cluster.rest().close(); // its ZooKeeper session, before ZooKeeper stops
            cli("stop");
        }
        String marker = LocalFlinkCluster.marker(workDir.toAbsolutePath().normalize()) + " ";
        assertThat(ProcessHandle.allProcesses())
                .as("no process of the cluster, ZooKeeper included, left after stop")
                .noneMatch(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false));
    }

    private void cli(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--work-dir";
        all[1] = workDir.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        assertThat(new CommandLine(new ClusterCli()).execute(all))
                .as("flink-local %s", String.join(" ", args))
                .isZero();
    }
}
