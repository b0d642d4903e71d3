package io.effonce.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;

/**
 * One job's start, watched until every task runs (or the job finished) or the start cannot succeed:
 * its first failure, or more slots than the cluster has in all. Tells how far it is while it waits.
 */
final class JobStart {

    private final FlinkRestClient rest;
    private final String jobId;

    JobStart(FlinkRestClient rest, String jobId) {
        this.rest = rest;
        this.jobId = jobId;
    }

    /**
     * Waits until every task of the job runs or the job finished (returns null) or the start cannot
     * succeed (returns why), telling {@code progress} every {@code every} (if positive) how far the
     * job is.
     */
    String runningOrWhyNot(Duration timeout, Duration every, Consumer<String> progress) {
        AtomicReference<String> failure = new AtomicReference<>();
        long started = System.nanoTime();
        long[] nextLine = {started + every.toNanos()};
        FlinkJobs.polling(
                        "all tasks of job %s running, or its first failure".formatted(jobId),
                        timeout)
                .until(
                        () -> {
                            JobDetailsInfo job = rest.jobDetails(jobId);
                            // A bounded job may end before a poll sees its tasks run, after a
                            // failure it recovered from too: it ran.
                            if (job.getJobStatus() == JobStatus.FINISHED) {
                                return true;
                            }
                            // The shortage first: Flink fails such a job with "Could not
                            // acquire the minimum required resources" as soon as its slot
                            // manager gives up, which a slow poll may see before anything else.
                            failure.set(moreSlotsThanTheCluster(job));
                            if (failure.get() != null) {
                                return true;
                            }
                            failure.set(firstFailure());
                            if (failure.get() != null) {
                                return true;
                            }
                            if (FlinkJobs.allTasksRunning(job)) {
                                return true;
                            }
                            long now = System.nanoTime();
                            if (!every.isZero() && now >= nextLine[0]) {
                                nextLine[0] = now + every.toNanos();
                                progress.accept(progressLine(job, started, now));
                            }
                            return false;
                        });
        return failure.get();
    }

    /**
     * Waits until each vertex with a Kafka source reader reports a partition of its own (the
     * reader's {@code KafkaSourceReader.topic.<topic>.partition.<n>} metrics appear when a split is
     * added; returns null), or the job's first failure (returns it). At least one Kafka source must
     * have reported: the metrics reach the REST API some seconds after the tasks run.
     */
    String kafkaPartitionsOrWhyNot(Duration timeout) {
        AtomicReference<String> failure = new AtomicReference<>();
        FlinkJobs.polling(
                        "every Kafka source of job %s assigned a partition, or its first failure"
                                .formatted(jobId),
                        timeout)
                .until(
                        () -> {
                            failure.set(firstFailure());
                            return failure.get() != null
                                    || everyKafkaSourceHasAPartition(rest.vertexMetricIds(jobId));
                        });
        return failure.get();
    }

    /**
     * Waits until the job completed a checkpoint since it was submitted (returns null), or its
     * first failure (returns it): every task took a barrier and the sink wrote at it.
     */
    String firstCheckpointOrWhyNot(Duration timeout) {
        AtomicReference<String> failure = new AtomicReference<>();
        FlinkJobs.polling(
                        "a completed checkpoint of job %s, or its first failure".formatted(jobId),
                        timeout)
                .until(
                        () -> {
                            failure.set(firstFailure());
                            return failure.get() != null || rest.checkpoints(jobId).completed() > 0;
                        });
        return failure.get();
    }

    /** The job's first failure in one line, or null. */
    private String firstFailure() {
        return rest.failures(jobId).stream().findFirst().map(FailureText::rootMessage).orElse(null);
    }

    static boolean everyKafkaSourceHasAPartition(Map<String, List<String>> metricIdsByVertex) {
        boolean anyKafkaSource = false;
        for (List<String> ids : metricIdsByVertex.values()) {
            if (ids.stream().anyMatch(id -> id.contains(".KafkaSourceReader."))) {
                anyKafkaSource = true;
                if (ids.stream().noneMatch(id -> id.contains(".KafkaSourceReader.topic."))) {
                    return false;
                }
            }
        }
        return anyKafkaSource;
    }

    /**
     * Why the job cannot run on this cluster at all: it needs more slots (its largest parallelism,
     * with Flink's default slot sharing) than every TaskManager has together. Flink itself waits
     * for them until its slot request times out (5 min by default), then restarts into the same
     * wait.
     */
    private String moreSlotsThanTheCluster(JobDetailsInfo job) {
        int needed = 0;
        for (JobDetailsInfo.JobVertexDetailsInfo vertex : job.getJobVertexInfos()) {
            needed = Math.max(needed, vertex.getParallelism());
        }
        int total = rest.slots().total();
        if (total == 0 || needed <= total) {
            return null;
        }
        return "it needs "
                + needed
                + " slots and the cluster has "
                + total
                + " in all: start TaskManagers (flink-local start-tm) or submit with --parallelism "
                + total
                + " or less";
    }

    private String progressLine(JobDetailsInfo job, long started, long now) {
        int tasks = 0;
        int running = 0;
        for (JobDetailsInfo.JobVertexDetailsInfo vertex : job.getJobVertexInfos()) {
            tasks += vertex.getParallelism();
            running += vertex.getTasksPerState().getOrDefault(ExecutionState.RUNNING, 0);
        }
        return "Job %s is %s after %d s: %d of %d tasks running, %d free slots"
                .formatted(
                        job.getJobId(),
                        job.getJobStatus(),
                        Duration.ofNanos(now - started).toSeconds(),
                        running,
                        tasks,
                        rest.slots().free());
    }
}
