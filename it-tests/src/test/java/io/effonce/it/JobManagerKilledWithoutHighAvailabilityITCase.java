package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.WorkloadReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Why high availability matters here (the counterfactual of {@link
 * JobManagerKilledWithHighAvailabilityITCase}): on a cluster without it, the same {@code kill -9}
 * of the JobManager loses the job — the new JobManager knows nothing of it. The way back by hand:
 * resubmitting without state is refused by the sink, whose message names the newest retained
 * checkpoint; resubmitting from that checkpoint gives exact totals.
 */
// The counterfactual of a test that runs every time: runs with -Deffonce.soak=true ("long").
@Tag("long")
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class JobManagerKilledWithoutHighAvailabilityITCase {

    private static final Duration TIMEOUT = FlinkJobs.DEFAULT_TIMEOUT;
    private static final String REFUSAL = "Refusing a fresh start";

    private final Path dir = WorkDirs.fresh("jm-kill-no-ha");

    @Test
    void withoutHighAvailabilityTheJobIsLostAndOnlyARestoreFromItsCheckpointIsAccepted(
            PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "nohajm", dir);
        try (LocalFlinkCluster cluster =
                        LocalFlinkCluster.start(
                                ClusterSpec.builder(dir.resolve("flink"))
                                        .taskManagers(2)
                                        .fastFailover()
                                        .quickStartJvms()
                                        .config("execution.checkpointing.interval", "500ms")
                                        .build());
                LedgerRelay relay = relays.start();
                ChaosReport report = new ChaosReport("jm-kill9-no-ha-cluster", db)) {
            FlinkJobs jobs = cluster.jobs();
            JobSubmission submission = JobJar.submission(db, kafka.servers(), relays.topic(), dir);
            String lost = jobs.submit(submission);
            jobs.awaitAllTasksRunning(lost);
            WorkloadReport first =
                    Workloads.runAsync(Workloads.options("nohajm", 3_000, 0), db).get();
            TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
            // A checkpoint completed after the totals were exact: the one to come back from.
            jobs.awaitCheckpointAfter(lost, cluster.rest().checkpoints(lost).latestCompletedId());
            long completedBeforeTheKill = cluster.rest().checkpoints(lost).latestCompletedId();
            jobs.awaitCheckpointInProgress(lost, TIMEOUT);

            FlinkProcess jobManager = cluster.leadingJobManager();
            report.mark("kill", "kill -9 of " + jobManager.name() + " during a checkpoint");
            cluster.killJobManager(jobManager);
            cluster.startJobManager();
            cluster.awaitTaskManagers(2, TIMEOUT);
            // The TaskManagers may register with the new JobManager while the lost job's tasks
            // still run (they notice the loss at the heartbeat timeout) and still write.
            cluster.awaitAllSlotsFree(TIMEOUT);
            assertThat(cluster.rest().jobs())
                    .as("a new JobManager without HA knows nothing of the job it replaced")
                    .isEmpty();
            report.mark("lost", "the new JobManager runs no job");

            // Changes keep coming while no job runs; they wait in Kafka.
            Workloads.runAsync(
                            Workloads.options(
                                    "nohajm2",
                                    1_000,
                                    0,
                                    first.lastEventTime().plus(Duration.ofMinutes(5))),
                            db)
                    .get();

            String checkpoint = newestRetainedCheckpoint(cluster.checkpointDir().resolve(lost));
            SinkTables tables = new SinkTables(db);
            long rowsBefore = tables.count("merchant_daily_totals");
            String fresh = jobs.submit(submission);
            String refusal = jobs.awaitFailure(fresh, REFUSAL, TIMEOUT);
            report.mark("refused", "resubmitted without state: refused by the sink");
            // Flink restarts the refused tasks: every attempt must refuse, none may flush.
            await("a second refused attempt of job %s".formatted(fresh))
                    .atMost(TIMEOUT)
                    .ignoreExceptions()
                    .until(
                            () ->
                                    cluster.rest().failures(fresh).stream()
                                                    .filter(f -> f.contains(REFUSAL))
                                                    .count()
                                            >= 2);
            assertThat(tables.count("merchant_daily_totals"))
                    .as("the refused attempts left every total in place")
                    .isEqualTo(rowsBefore);
            // The sink names the last checkpoint it committed: the newest retained one, or the one
            // before it when the kill landed as the checkpoint in flight completed (its _metadata
            // written, its completion never told to the tasks).
            Matcher named = Pattern.compile(lost + "/chk-(\\d+)").matcher(refusal);
            assertThat(named.find())
                    .as("the refusal names a checkpoint of the lost job: %s", refusal)
                    .isTrue();
            assertThat(Long.parseLong(named.group(1)))
                    .as("the checkpoint the refusal names")
                    .isBetween(completedBeforeTheKill, checkpointId(checkpoint));
            jobs.cancel(fresh);

            String restored = jobs.submit(submission.fromSavepoint(checkpoint));
            jobs.awaitAllTasksRunning(restored);
            report.mark("restore", "resubmitted from " + checkpoint);
            Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
            report.figure("lost job", lost);
            report.figure("restored from", checkpoint);
            report.figure("refusal", refusal);
            report.figure("result", comparison.summary());
            assertThat(cluster.rest().checkpoints(restored).latestRestoredId())
                    .isEqualTo(checkpointId(checkpoint));
            jobs.cancel(restored);
        } finally {
            relays.dropSlot();
        }
    }

    /** The complete {@code chk-<n>} (one with {@code _metadata}) with the highest n. */
    private static String newestRetainedCheckpoint(Path jobDir) throws IOException {
        try (Stream<Path> children = Files.list(jobDir)) {
            return children.filter(p -> p.getFileName().toString().matches("chk-\\d+"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingLong(p -> checkpointId(p.toString())))
                    .map(Path::toString)
                    .orElseThrow(() -> new AssertionError("No retained checkpoint in " + jobDir));
        }
    }

    private static long checkpointId(String path) {
        String name = Path.of(path).getFileName().toString();
        return Long.parseLong(name.substring("chk-".length()));
    }
}
