package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cluster.cli.ClusterCli;
import io.effonce.cluster.testjob.CountingJob;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * A real multi-process cluster (one JobManager, two TaskManagers, each a separate JVM) running the
 * counting test job from its jar: failover after {@code kill -9}, savepoint, rescale, and no
 * process left behind.
 */
class LocalFlinkClusterITCase {

    private static final Logger LOG = LoggerFactory.getLogger(LocalFlinkClusterITCase.class);

    @TempDir static Path workDir;

    private static LocalFlinkCluster cluster;
    private static JobSubmission countingJob;

    @BeforeAll
    static void startCluster() {
        long begin = System.nanoTime();
        cluster =
                LocalFlinkCluster.start(
                        ClusterSpec.builder(workDir)
                                .taskManagers(2)
                                .fastFailover()
                                .quickStartJvms()
                                .config("execution.checkpointing.interval", "1s")
                                .config("execution.checkpointing.min-pause", "200ms")
                                .build());
        LOG.info("Cluster start took {} ms", (System.nanoTime() - begin) / 1_000_000);
        Path jar = Path.of(System.getProperty("effonce.testjob.jar"));
        assertThat(jar).exists();
        countingJob = JobSubmission.of(jar, CountingJob.class.getName(), "500");
    }

    @AfterAll
    static void stopClusterLeavesNoProcessBehind() {
        if (cluster == null) {
            return;
        }
        cluster.stop();
        assertThat(cluster.processes()).noneMatch(FlinkProcess::isAlive);
        String marker = LocalFlinkCluster.marker(cluster.workDir()) + " ";
        assertThat(ProcessHandle.allProcesses())
                .noneMatch(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false));
        assertThat(LocalFlinkCluster.attach(workDir)).isEmpty();
    }

    /**
     * config.yaml's Prometheus reporter runs in every process: each serves Prometheus's text format
     * on a port of 9249–9260, the JobManager its {@code flink_jobmanager_} metrics and each
     * TaskManager its {@code flink_taskmanager_} ones.
     */
    @Test
    void everyProcessServesItsMetricsToPrometheus() {
        await("the JobManager and both TaskManagers serving /metrics on 9249-9260")
                .atMost(Duration.ofMinutes(2))
                .until(
                        () -> {
                            List<String> pages = PrometheusPages.scrape();
                            return pages.stream()
                                                    .filter(p -> p.contains("flink_jobmanager_"))
                                                    .count()
                                            >= 1
                                    && pages.stream()
                                                    .filter(p -> p.contains("flink_taskmanager_"))
                                                    .count()
                                            >= 2;
                        });
    }

    @Test
    void jobRestoresFromLatestCheckpointAfterTaskManagerIsKilledMidCheckpoint() {
        FlinkJobs jobs = cluster.jobs();
        String jobId = jobs.submit(countingJob.withParallelism(2));
        jobs.awaitAllTasksRunning(jobId);
        CheckpointStats before = jobs.awaitCompletedCheckpoints(jobId, 2);
        assertThat(before.hasRestored()).isFalse();

        Set<String> busy = jobs.taskManagersOf(jobId);
        FlinkProcess victim = cluster.taskManager(busy.iterator().next());
        jobs.awaitCheckpointInProgress(jobId, Duration.ofMinutes(5));
        long killedAt = System.nanoTime();
        cluster.killTaskManager(victim.index());
        assertThat(victim.isAlive()).isFalse();

        CheckpointStats after =
                jobs.awaitRestoredAndRunning(jobId, before.restored(), Duration.ofMinutes(5));
        long recoveryMs = (System.nanoTime() - killedAt) / 1_000_000;
        LOG.info(
                "kill -9 of {} -> restored and all tasks RUNNING in {} ms",
                victim.name(),
                recoveryMs);

        assertThat(after.hasRestored()).isTrue();
        assertThat(after.latestRestoredId()).isGreaterThanOrEqualTo(before.latestCompletedId());
        assertThat(after.latestRestoredIsSavepoint()).isFalse();
        assertThat(jobs.taskManagersOf(jobId)).doesNotContain(victim.resourceId());
        jobs.awaitCheckpointAfter(jobId, after.latestRestoredId());

        FlinkProcess replacement = cluster.startTaskManager();
        cluster.awaitTaskManagers(2, Duration.ofMinutes(5));
        assertThat(cluster.rest().taskManagerIds()).contains(replacement.resourceId());
    }

    @Test
    void rescaleTwoToOneRestoresFromTheStopSavepoint() throws Exception {
        FlinkJobs jobs = cluster.jobs();
        String jobId = jobs.submit(countingJob.withParallelism(2));
        jobs.awaitAllTasksRunning(jobId);
        jobs.awaitCompletedCheckpoints(jobId, 1);

        String savepoint = jobs.savepoint(jobId);
        assertThat(Path.of(java.net.URI.create(savepoint))).isDirectory();
        assertThat(savepoint)
                .startsWith(
                        cluster.savepointDir().toUri().toString().replace("file:///", "file:/"));

        String rescaled = jobs.rescale(jobId, 1);
        jobs.awaitAllTasksRunning(rescaled);
        assertThat(cluster.rest().jobState(jobId)).isEqualTo("FINISHED");
        assertThat(cluster.rest().jobDetails(rescaled).getJobVertexInfos())
                .allSatisfy(v -> assertThat(v.getParallelism()).isEqualTo(1));
        CheckpointStats restored = cluster.rest().checkpoints(rescaled);
        assertThat(restored.latestRestoredIsSavepoint()).isTrue();
        assertThat(restored.latestRestoredPath()).isNotNull();
    }

    /** Each test starts with no job and two live TaskManagers, whatever the last one left. */
    @AfterEach
    void cancelJobsAndRestoreTwoTaskManagers() {
        cluster.jobs().cancelAll();
        for (int i = cluster.liveTaskManagers().size(); i < 2; i++) {
            cluster.startTaskManager();
        }
        cluster.awaitTaskManagers(2, Duration.ofMinutes(5));
    }

    @Test
    void commandLineFindsTheRunningClusterThroughItsStateFile() {
        LocalFlinkCluster attached = LocalFlinkCluster.attach(workDir).orElseThrow();
        assertThat(attached.restUri()).isEqualTo(cluster.restUri());
        assertThat(attached.processes().stream().map(FlinkProcess::pid))
                .containsAll(cluster.liveTaskManagers().stream().map(FlinkProcess::pid).toList());

        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new ClusterCli()).setOut(new PrintWriter(out));
        int exit = cli.execute("--work-dir", workDir.toString(), "status");
        assertThat(exit).isZero();
        assertThat(Files.exists(workDir.resolve("cluster.properties"))).isTrue();
    }
}
