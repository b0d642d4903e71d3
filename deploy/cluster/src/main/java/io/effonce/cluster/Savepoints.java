package io.effonce.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Savepoints of a {@link LocalFlinkCluster}'s jobs, taken or with a stop, each ending when Flink
 * has written it: the part of {@link FlinkJobs} that talks to Flink's asynchronous savepoint
 * operations.
 */
final class Savepoints {

    private static final Logger LOG = LoggerFactory.getLogger(Savepoints.class);

    /** Stops tried while a restart declines them; more would hide a job that never runs. */
    private static final int DECLINED_STOPS = 3;

    private final LocalFlinkCluster cluster;
    private final FlinkRestClient rest;
    private final FlinkJobs jobs;

    Savepoints(LocalFlinkCluster cluster, FlinkJobs jobs) {
        this.cluster = cluster;
        this.rest = cluster.rest();
        this.jobs = jobs;
    }

    /** Takes a savepoint into the cluster's savepoint directory; returns its path. */
    String take(String jobId) {
        String trigger = rest.triggerSavepoint(jobId, cluster.savepointDir().toUri().toString());
        String path = awaitLocation(jobId, trigger);
        LOG.info("Savepoint of job {}: {}", jobId, path);
        return path;
    }

    /**
     * Stops the job with a savepoint, with {@code drain} sending the end-of-input watermark first,
     * and waits until it is FINISHED; returns the path. A stop declined while the job restarts
     * (before any savepoint began) is tried again once its tasks run, as an operator would, at most
     * {@value #DECLINED_STOPS} times; any other failure fails.
     */
    String stop(String jobId, boolean drain) {
        for (int attempt = 1; ; attempt++) {
            String trigger =
                    rest.triggerStop(jobId, cluster.savepointDir().toUri().toString(), drain);
            try {
                String path = awaitLocation(jobId, trigger);
                jobs.awaitState(jobId, "FINISHED");
                LOG.info(
                        "Stopped job {} with savepoint {}{}",
                        jobId,
                        path,
                        drain ? " (drained)" : "");
                return path;
            } catch (FlinkRestException e) {
                if (attempt == DECLINED_STOPS || !declinedWhileRestarting(e)) {
                    throw e;
                }
                LOG.warn(
                        "The stop of job {} was declined while it restarted; stopping it again"
                                + " once its tasks run",
                        jobId);
                jobs.awaitAllTasksRunning(jobId);
            }
        }
    }

    /** Flink declines a savepoint while a task is not running (a restart in progress). */
    private static boolean declinedWhileRestarting(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null
                    && t.getMessage().contains("Not all required tasks are currently running")) {
                return true;
            }
        }
        return false;
    }

    private String awaitLocation(String jobId, String triggerId) {
        AtomicReference<String> location = new AtomicReference<>();
        await("savepoint %s of job %s".formatted(triggerId, jobId))
                .atMost(FlinkJobs.DEFAULT_TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> {
                            location.set(rest.savepointLocation(jobId, triggerId));
                            return location.get() != null;
                        });
        return location.get();
    }
}
