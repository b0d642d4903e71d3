package io.effonce.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Job operations on a {@link LocalFlinkCluster}, each ending when Flink has done it: submit a jar,
 * wait for a state or for checkpoints, take a savepoint, stop with a savepoint, rescale through a
 * savepoint, cancel. Timeouts default to {@link #DEFAULT_TIMEOUT}.
 */
public final class FlinkJobs {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkJobs.class);

    /**
     * How long each wait lasts unless told otherwise: an upper bound for a slow, busy machine,
     * never a budget the verdict depends on.
     */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

    /**
     * How often a wait asks the REST API: each answer costs the JobManager and the asker some CPU,
     * which a small machine running a suite of clusters lacks; a wait longer by 200 ms at most.
     */
    private static final Duration POLL = Duration.ofMillis(200);

    /**
     * A wait for {@code what} of at most {@code timeout}, asking the REST API every {@link #POLL};
     * a request that fails (the JobManager failing over) is asked again.
     */
    static ConditionFactory polling(String what, Duration timeout) {
        return await(what).atMost(timeout).pollInterval(POLL).ignoreExceptions();
    }

    private final LocalFlinkCluster cluster;
    private final FlinkRestClient rest;
    private final Savepoints savepoints;

    FlinkJobs(LocalFlinkCluster cluster) {
        this.cluster = cluster;
        this.rest = cluster.rest();
        this.savepoints = new Savepoints(cluster, this);
    }

    /** Uploads the jar and runs it; returns the job id. Remembers the submission for rescale. */
    public String submit(JobSubmission job) {
        String jarId = rest.uploadJar(job.jar());
        String jobId = rest.runJar(jarId, job);
        ClusterState.recordSubmission(cluster.workDir(), jobId, job);
        LOG.info(
                "Submitted {} as job {} (parallelism {}, {})",
                job.entryClass(),
                jobId,
                job.parallelism() == 0 ? "default" : job.parallelism(),
                job.savepointPath() == null
                        ? "without state"
                        : "from savepoint " + job.savepointPath());
        return jobId;
    }

    /** Waits until the job is in {@code state} (RUNNING, FINISHED, CANCELED...). */
    public void awaitState(String jobId, String state) {
        polling("job %s in state %s".formatted(jobId, state), DEFAULT_TIMEOUT)
                .until(() -> state.equals(rest.jobState(jobId)));
    }

    /**
     * Waits until the job is RUNNING with every task of every vertex RUNNING (the job state alone
     * turns RUNNING before its tasks are deployed).
     */
    public void awaitAllTasksRunning(String jobId, Duration timeout) {
        polling("all tasks of job %s running".formatted(jobId), timeout)
                .until(() -> allTasksRunning(jobId));
    }

    public void awaitAllTasksRunning(String jobId) {
        awaitAllTasksRunning(jobId, DEFAULT_TIMEOUT);
    }

    /**
     * Waits until the job has restored once more than {@code restoredBefore} (the {@link
     * CheckpointStats#restored()} count read before a fault) and every task is RUNNING again; the
     * way to see a failover complete, since the job state may still read RUNNING right after a
     * kill.
     */
    public CheckpointStats awaitRestoredAndRunning(
            String jobId, long restoredBefore, Duration timeout) {
        return awaitCheckpointStats(
                jobId,
                "restored more than %d times and running again".formatted(restoredBefore),
                timeout,
                stats -> stats.restored() > restoredBefore && allTasksRunning(jobId));
    }

    /**
     * Waits until one of the job's failures (its exception history) contains {@code text}, and
     * returns the line of the stack trace that does: the way to see a refusal in a job that keeps
     * restarting.
     */
    public String awaitFailure(String jobId, String text, Duration timeout) {
        AtomicReference<String> line = new AtomicReference<>();
        polling("a failure of job %s containing \"%s\"".formatted(jobId, text), timeout)
                .until(
                        () -> {
                            rest.failures(jobId).stream()
                                    .flatMap(String::lines)
                                    .filter(l -> l.contains(text))
                                    .findFirst()
                                    .ifPresent(line::set);
                            return line.get() != null;
                        });
        return line.get().trim();
    }

    /**
     * Waits until every task of the job runs (or the job finished), or the job's first failure:
     * returns the failure's root message, or null once everything runs or ran.
     */
    public String awaitAllTasksRunningOrFirstFailure(String jobId, Duration timeout) {
        return new JobStart(rest, jobId).runningOrWhyNot(timeout, Duration.ZERO, line -> {});
    }

    /**
     * The same, telling {@code progress} every {@code every} (if positive) how far the job is: its
     * state, its running tasks and the cluster's free slots.
     */
    public String awaitAllTasksRunningOrFirstFailure(
            String jobId, Duration timeout, Duration every, Consumer<String> progress) {
        return new JobStart(rest, jobId).runningOrWhyNot(timeout, every, progress);
    }

    /**
     * Waits until every Kafka source of the running job was assigned a partition (returns null), or
     * its first failure (returns it, in one line).
     */
    public String awaitKafkaPartitionsOrFirstFailure(String jobId) {
        return new JobStart(rest, jobId).kafkaPartitionsOrWhyNot(DEFAULT_TIMEOUT);
    }

    /**
     * Waits until the running job completed a checkpoint (returns null), or its first failure
     * (returns it, in one line).
     */
    public String awaitFirstCheckpointOrFirstFailure(String jobId) {
        return new JobStart(rest, jobId).firstCheckpointOrWhyNot(DEFAULT_TIMEOUT);
    }

    /** Cancels every job that is not yet finished, failed or cancelled. */
    public void cancelAll() {
        rest.jobs()
                .forEach(
                        (id, state) -> {
                            if (!Set.of("FINISHED", "FAILED", "CANCELED", "CANCELLING")
                                    .contains(state)) {
                                cancel(id);
                            }
                        });
    }

    /** True when the job is RUNNING and so is each of its tasks. */
    public boolean allTasksRunning(String jobId) {
        return allTasksRunning(rest.jobDetails(jobId));
    }

    static boolean allTasksRunning(JobDetailsInfo job) {
        if (job.getJobStatus() != JobStatus.RUNNING) {
            return false;
        }
        for (JobDetailsInfo.JobVertexDetailsInfo vertex : job.getJobVertexInfos()) {
            Integer running = vertex.getTasksPerState().get(ExecutionState.RUNNING);
            if (running == null || running != vertex.getParallelism()) {
                return false;
            }
        }
        return true;
    }

    /** Waits until a checkpoint newer than {@code afterCheckpointId} has completed. */
    public CheckpointStats awaitCheckpointAfter(String jobId, long afterCheckpointId) {
        return awaitCheckpointStats(
                jobId,
                "a completed checkpoint after %d".formatted(afterCheckpointId),
                DEFAULT_TIMEOUT,
                stats -> stats.latestCompletedId() > afterCheckpointId);
    }

    /** Waits until at least {@code count} checkpoints have completed since submission. */
    public CheckpointStats awaitCompletedCheckpoints(String jobId, long count) {
        return awaitCheckpointStats(
                jobId,
                "%d completed checkpoints".formatted(count),
                DEFAULT_TIMEOUT,
                stats -> stats.completed() >= count);
    }

    /**
     * Polls the job's checkpoint statistics until {@code done}; on timeout the error names what was
     * awaited and the last statistics seen.
     */
    private CheckpointStats awaitCheckpointStats(
            String jobId, String what, Duration timeout, Predicate<CheckpointStats> done) {
        AtomicReference<CheckpointStats> last = new AtomicReference<>();
        try {
            polling("job %s: %s".formatted(jobId, what), timeout)
                    .until(
                            () -> {
                                last.set(rest.checkpoints(jobId));
                                return done.test(last.get());
                            });
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException(
                    "Job %s: waited %s for %s; last checkpoint statistics: %s, job state %s"
                            .formatted(jobId, timeout, what, last.get(), safeJobState(jobId)),
                    e);
        }
        return last.get();
    }

    private String safeJobState(String jobId) {
        try {
            return rest.jobState(jobId);
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /**
     * Waits until a checkpoint is in progress (triggered, not yet completed); the chaos tests kill
     * a TaskManager then. Checkpoints may be short: poll with a small interval.
     */
    public void awaitCheckpointInProgress(String jobId, Duration timeout) {
        await("a checkpoint of job %s in progress".formatted(jobId))
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .until(() -> rest.checkpoints(jobId).checkpointInProgress());
    }

    /** Resource ids ({@code tm-<index>}) of the TaskManagers running the job's tasks. */
    public Set<String> taskManagersOf(String jobId) {
        return rest.taskManagersOf(jobId);
    }

    /** Takes a savepoint into the cluster's savepoint directory; returns its path. */
    public String savepoint(String jobId) {
        return savepoints.take(jobId);
    }

    /** Stops the job with a savepoint (no drain), waits until it is FINISHED; returns the path. */
    public String stopWithSavepoint(String jobId) {
        return stopWithSavepoint(jobId, false);
    }

    /**
     * Stops the job with a savepoint, with {@code drain} sending the end-of-input watermark first,
     * and waits until it is FINISHED; returns the path. A stop Flink declines while the job
     * restarts is tried again once its tasks run ({@link Savepoints#stop}).
     */
    public String stopWithSavepoint(String jobId, boolean drain) {
        return savepoints.stop(jobId, drain);
    }

    /**
     * Stops the job with a savepoint and submits it again from that savepoint with {@code
     * parallelism}, using the submission recorded when it was submitted; returns the new job id.
     */
    public String rescale(String jobId, int parallelism) {
        JobSubmission original =
                ClusterState.submission(cluster.workDir(), jobId)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "Job "
                                                        + jobId
                                                        + " was not submitted through this cluster;"
                                                        + " use rescale(jobId, submission)"));
        return rescale(jobId, original.withParallelism(parallelism));
    }

    /** Stops the job with a savepoint and submits {@code next} from that savepoint. */
    public String rescale(String jobId, JobSubmission next) {
        String savepoint = stopWithSavepoint(jobId);
        return submit(next.fromSavepoint(savepoint));
    }

    /** How {@code jobId} was submitted through this cluster, if it was. */
    public Optional<JobSubmission> submissionOf(String jobId) {
        return ClusterState.submission(cluster.workDir(), jobId);
    }

    /** Cancels the job and waits until it is CANCELED. */
    public void cancel(String jobId) {
        rest.cancel(jobId);
        awaitState(jobId, "CANCELED");
    }
}
