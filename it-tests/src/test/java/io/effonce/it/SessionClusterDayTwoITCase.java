package io.effonce.it;

import static org.awaitility.Awaitility.await;

import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.JobSubmission;
import io.effonce.it.testutils.ChaosClusterExtension;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.UserCodeLoaders;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A session cluster used the way Flink users keep one for weeks: the same JobManager and
 * TaskManager take run after run of the job jar.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class SessionClusterDayTwoITCase {

    private static final Path DIR = WorkDirs.fresh("day-two");
    private static final String TOPIC = "daytwo.public.payments";
    private static final int RUNS = 5;

    /** Longer than pgjdbc's cleanup thread lives on after the last connection closed (30 s). */
    private static final Duration RELEASED_WITHIN = Duration.ofMinutes(3);

    @RegisterExtension
    static final ChaosClusterExtension CLUSTER = new ChaosClusterExtension(DIR, 1);

    /**
     * Every run's {@code main} runs in the JobManager and its tasks in the TaskManager, each in a
     * user-code class loader of its own. Once the runs ended, both processes let go of those
     * loaders and of the Metaspace their classes take (some 11 MB a run). Before the PostgreSQL
     * driver's registration was taken back (at the end of {@code main}, and by the tasks'
     * class-loader release hook), every run kept its loader in both processes, and the JobManager,
     * with 256 MB of Metaspace, refused submissions after about ten.
     */
    @Test
    void finishedRunsLeaveNoUserCodeClassLoaderBehind(PostgresEndpoint db, KafkaBootstrap kafka)
            throws Exception {
        KafkaTopics.create(kafka.servers(), TOPIC, 2);
        PostgresEndpoint sink = db.withPasswordFor("effonce_sink", "day-two");
        JobSubmission job = JobJar.submission(sink, kafka.servers(), TOPIC, DIR).withParallelism(2);
        FlinkJobs jobs = CLUSTER.cluster().jobs();
        for (int run = 1; run <= RUNS; run++) {
            String jobId = jobs.submit(job);
            jobs.awaitAllTasksRunning(jobId);
            jobs.cancel(jobId);
        }

        FlinkProcess jobManager = CLUSTER.cluster().leadingJobManager();
        FlinkProcess taskManager = CLUSTER.cluster().liveTaskManagers().get(0);
        // One loader may stay: the TaskManager keeps the last job's libraries a while.
        for (FlinkProcess process : new FlinkProcess[] {jobManager, taskManager}) {
            await(
                            "the user-code class loaders of "
                                    + RUNS
                                    + " ended runs released by "
                                    + process
                                    + " (at most one left)")
                    .atMost(RELEASED_WITHIN)
                    .pollInterval(Duration.ofSeconds(5))
                    .until(() -> UserCodeLoaders.reachable(process) <= 1);
        }

        // And the cluster still takes the job.
        jobs.awaitAllTasksRunning(jobs.submit(job));
    }
}
