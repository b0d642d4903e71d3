package io.effonce.it.testutils;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsCounts;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fault injection and observation on a MiniCluster: terminate a task manager while a checkpoint is
 * in progress and start a replacement; wait for checkpoints and for a restore to complete.
 */
public final class MiniClusterFaults {

    private static final Logger LOG = LoggerFactory.getLogger(MiniClusterFaults.class);

    /** Upper bound for each wait; a restore costs seconds here, more on a busy machine. */
    public static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final MiniCluster cluster;
    private final JobID job;

    /**
     * Per cluster, how many task managers were terminated: the MiniCluster keeps them in its list,
     * so the oldest live one has this index, across the tests of a class that share the cluster.
     */
    private static final Map<MiniCluster, AtomicInteger> TERMINATED = new WeakHashMap<>();

    /** Task managers are terminated in start order: 0, 1, then the replacements. */
    public MiniClusterFaults(MiniCluster cluster, JobID job) {
        this.cluster = cluster;
        this.job = job;
    }

    public CheckpointStatsCounts counts() {
        try {
            return graph().getCheckpointStatsSnapshot().getCounts();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public long restores() {
        return counts().getNumberOfRestoredCheckpoints();
    }

    public long completedCheckpoints() {
        return counts().getNumberOfCompletedCheckpoints();
    }

    public long failedCheckpoints() {
        return counts().getNumberOfFailedCheckpoints();
    }

    /** Waits until at least {@code n} more checkpoints than now have completed. */
    public void awaitMoreCheckpoints(int n, Duration timeout) {
        long target = completedCheckpoints() + n;
        await("%d completed checkpoints of %s".formatted(target, job))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> completedCheckpoints() >= target);
    }

    /**
     * Waits for a checkpoint in progress (after at least one completed, so that the job has one to
     * restore from), terminates the oldest live task manager at that moment and starts a
     * replacement; then waits until the job has restored, every task runs again and the first
     * checkpoint after the restore completed, marking each moment in {@code report}.
     */
    public TaskManagerKill terminateTaskManagerMidCheckpoint(ChaosReport report) throws Exception {
        long restoresBefore = restores();
        // A kill before the first completed checkpoint is a restart without state, which no
        // restore counter sees: wait for one to restore from.
        await("a completed checkpoint of %s".formatted(job))
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> completedCheckpoints() >= 1);
        long[] inProgress = {-1};
        await("a checkpoint of %s in progress".formatted(job))
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> (inProgress[0] = inProgressCheckpoint()) >= 0);
        int victim;
        synchronized (TERMINATED) {
            victim =
                    TERMINATED.computeIfAbsent(cluster, c -> new AtomicInteger()).getAndIncrement();
        }
        ChaosReport.Recovery recovery =
                report.fault(
                        "kill",
                        "terminate task manager %d during checkpoint %d"
                                .formatted(victim, inProgress[0]));
        cluster.terminateTaskManager(victim).get();
        cluster.startTaskManager();
        awaitRestoredAndRunning(restoresBefore, TIMEOUT);
        long restoredFrom = latestRestoredId();
        recovery.running("restored from checkpoint " + restoredFrom + ", all tasks running");
        recovery.checkpointed(awaitCheckpointAfter(restoredFrom));
        boolean hit = status(inProgress[0]) == CheckpointStatsStatus.FAILED;
        LOG.info(
                "Terminated task manager {} during checkpoint {} ({}); replacement started,"
                        + " restored {} times",
                victim,
                inProgress[0],
                hit ? "it failed: killed mid-checkpoint" : "it completed before the kill",
                restores());
        return new TaskManagerKill(recovery, hit);
    }

    private long latestRestoredId() throws Exception {
        RestoredCheckpointStats restored =
                graph().getCheckpointStatsSnapshot().getLatestRestoredCheckpoint();
        return restored == null ? -1 : restored.getCheckpointId();
    }

    /** Waits until a checkpoint newer than {@code checkpointId} completed; returns its id. */
    public long awaitCheckpointAfter(long checkpointId) {
        long[] latest = {-1};
        await("a completed checkpoint of %s after %d".formatted(job, checkpointId))
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> (latest[0] = latestCompletedId()) > checkpointId);
        return latest[0];
    }

    /** Id of the latest completed checkpoint, -1 if none. */
    public long latestCompletedId() throws Exception {
        CompletedCheckpointStats c =
                graph().getCheckpointStatsSnapshot().getHistory().getLatestCompletedCheckpoint();
        return c == null ? -1 : c.getCheckpointId();
    }

    private long inProgressCheckpoint() throws Exception {
        for (AbstractCheckpointStats c :
                graph().getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
            if (c.getStatus() == CheckpointStatsStatus.IN_PROGRESS) {
                return c.getCheckpointId();
            }
        }
        return -1;
    }

    private CheckpointStatsStatus status(long checkpointId) throws Exception {
        for (AbstractCheckpointStats c :
                graph().getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
            if (c.getCheckpointId() == checkpointId) {
                return c.getStatus();
            }
        }
        return CheckpointStatsStatus.IN_PROGRESS;
    }

    /** Waits until the job restored more often than {@code restoresBefore} and all tasks run. */
    public void awaitRestoredAndRunning(long restoresBefore, Duration timeout) {
        await("%s restored and running".formatted(job))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> restores() > restoresBefore && allTasksRunning());
    }

    /** Waits until every task of the job is RUNNING. */
    public void awaitAllTasksRunning(Duration timeout) {
        await("all tasks of %s running".formatted(job))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(this::allTasksRunning);
    }

    public boolean allTasksRunning() throws Exception {
        AccessExecutionGraph graph = graph();
        if (graph.getState() != JobStatus.RUNNING) {
            return false;
        }
        for (AccessExecutionVertex v : graph.getAllExecutionVertices()) {
            if (v.getExecutionState() != ExecutionState.RUNNING) {
                return false;
            }
        }
        return true;
    }

    /** The latest failure the job recovered from, with its causes, or empty if none. */
    public String lastFailure() throws Exception {
        var info = graph().getFailureInfo();
        return info == null ? "" : info.getExceptionAsString();
    }

    private AccessExecutionGraph graph() throws Exception {
        return cluster.getExecutionGraph(job).get();
    }
}
