package io.effonce.cluster.cli;

import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.LocalFlinkCluster;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Watches a submitted job start, for {@code submit --wait} and {@code sql}: every task running (or
 * the job finished: a bounded one may end before a poll sees its tasks run), or the job's first
 * failure in one line. A job that failed while starting and did not end by itself restarts into the
 * same failure, so it is cancelled: nothing is left behind.
 */
final class StartWatch {

    /** How often the watch says what it waits for. */
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(15);

    /** States of a job that ends by itself. */
    private static final Set<String> ENDING =
            Set.of("FAILING", "FAILED", "CANCELLING", "CANCELED", "FINISHED");

    private final LocalFlinkCluster cluster;

    StartWatch(LocalFlinkCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * Waits for {@code jobId} to run every task; empty once it does, else the line that says why
     * not and what became of the job.
     */
    Optional<String> failureWhileStarting(String jobId, Consumer<String> progress) {
        FlinkJobs jobs = cluster.jobs();
        String failure;
        try {
            failure =
                    jobs.awaitAllTasksRunningOrFirstFailure(
                            jobId, FlinkJobs.DEFAULT_TIMEOUT, PROGRESS_EVERY, progress);
        } catch (ConditionTimeoutException e) {
            failure =
                    "not every task ran within "
                            + FlinkJobs.DEFAULT_TIMEOUT.toMinutes()
                            + " min, and no task failed (free slots: "
                            + cluster.rest().slots().free()
                            + ")";
        }
        if (failure == null) {
            return Optional.empty();
        }
        return Optional.of(failedWhileStarting(jobId, failure));
    }

    /**
     * The one line for a job that failed while starting: the failure, what became of the job, and
     * what to do once the cause is fixed.
     */
    private String failedWhileStarting(String jobId, String failure) {
        String ended = cancelUnlessEnded(jobId);
        return "Job " + jobId + " failed while starting: " + failure + ended + nextStep(jobId);
    }

    /**
     * What to do once the cause is fixed, as the job's own checkpoints say: read after the job
     * ended or was cancelled, since a restarting job may complete one until then.
     */
    private String nextStep(String jobId) {
        String newest;
        try {
            newest = cluster.rest().checkpoints(jobId).latestCompletedPath();
        } catch (RuntimeException e) {
            return ""; // the line says what failed; its checkpoints are not known
        }
        return newest == null
                ? " It completed no checkpoint: once the cause is fixed, run it again as before."
                : " Once the cause is fixed, resume it from its newest retained checkpoint (-s "
                        + newest
                        + ").";
    }

    /**
     * After every task runs, for a job whose {@code main} did not check its services ({@code
     * --startup-check false}): its tasks run at once, and what {@code main} would have found fails
     * the job later. Waits until each of its Kafka sources was assigned a partition (on a start
     * without a savepoint, its enumerator in the JobManager reached the brokers and found the
     * topic; a source that cannot reach Kafka fails the job only after the Kafka clients' API
     * timeout, 60 s), then until it completed a checkpoint (every task, the sink too, wrote at a
     * barrier); empty once it did, else the line that says why not.
     */
    Optional<String> failureBeforeFirstCheckpoint(String jobId, Consumer<String> progress) {
        progress.accept(
                "Job "
                        + jobId
                        + " runs; main's checks were skipped: waiting until its Kafka sources have"
                        + " their partitions and it completed a checkpoint, or its first failure");
        FlinkJobs jobs = cluster.jobs();
        String failure;
        try {
            failure = jobs.awaitKafkaPartitionsOrFirstFailure(jobId);
        } catch (ConditionTimeoutException e) {
            failure =
                    "no Kafka source of the job was assigned a partition within "
                            + FlinkJobs.DEFAULT_TIMEOUT.toMinutes()
                            + " min, and no task failed";
        }
        if (failure == null) {
            try {
                failure = jobs.awaitFirstCheckpointOrFirstFailure(jobId);
            } catch (ConditionTimeoutException e) {
                long failed = cluster.rest().checkpoints(jobId).failed();
                if (failed > 0) {
                    // Failing checkpoints fail the job only once more than the tolerable number
                    // failed, minutes later; it would restart into the same failure.
                    failure =
                            failed
                                    + " of its checkpoints failed and none completed within "
                                    + FlinkJobs.DEFAULT_TIMEOUT.toMinutes()
                                    + " min (the JobManager's log says why)";
                } else {
                    // Nothing failed: the job may only checkpoint seldom, so it is not cancelled.
                    return Optional.of(
                            "Job "
                                    + jobId
                                    + " runs, but completed no checkpoint within "
                                    + FlinkJobs.DEFAULT_TIMEOUT.toMinutes()
                                    + " min and none failed (is its"
                                    + " execution.checkpointing.interval, or"
                                    + " interval-during-backlog while it reads a backlog,"
                                    + " longer?); it is left running: flink-local cancel "
                                    + jobId
                                    + " if it should not run");
                }
            }
        }
        if (failure == null) {
            return Optional.empty();
        }
        return Optional.of(failedWhileStarting(jobId, failure));
    }

    /**
     * Cancels another job of the same file when one of them failed: the file runs whole or not at
     * all, as a user reruns it.
     */
    void cancelIfRunning(String jobId) {
        if (!ENDING.contains(cluster.rest().jobState(jobId))) {
            cluster.jobs().cancel(jobId);
        }
    }

    /** Cancels the job unless it ended by itself; says which, for the same line. */
    private String cancelUnlessEnded(String jobId) {
        String state = cluster.rest().jobState(jobId);
        if (ENDING.contains(state)) {
            return " (the job is " + state + ")";
        }
        cluster.jobs().cancel(jobId);
        return " (the job was " + state + ", restarting into the same failure: it is cancelled)";
    }
}
