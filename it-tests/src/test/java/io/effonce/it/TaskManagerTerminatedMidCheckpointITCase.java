package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TaskManagerKill;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SoakRun;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Task managers terminated while a checkpoint is in progress, on a MiniCluster (two task managers
 * of one slot, so each holds a subtask of every operator), with a replacement started each time:
 * the job restores from the last completed checkpoint, every sink subtask runs the full flush, and
 * the totals end equal to the ledger.
 *
 * <p>The soak's TaskManager kill, {@code JobJarOnLocalClusterITCase.WatchedByPrometheus} and {@code
 * LivePageUnderTaskManagerKillsITCase} (on the multi-process cluster) do the same in every {@code
 * mvn verify}, so this one runs with the soak flag.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
@Tag("long")
class TaskManagerTerminatedMidCheckpointITCase {

    private static final int KILLS = SoakRun.asked() ? 10 : 3;
    private static final double RATE = SoakRun.asked() ? 3_000 : 1_000;

    /** Payments committed before each kill (and after the last recovery): changes in flight. */
    private static final long BETWEEN_FAULTS = 2_000;

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    private final Path dir = WorkDirs.fresh("tm-terminated-minicluster");

    @Test
    void totalsAreExactAfterTaskManagersAreTerminatedMidCheckpoint(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "tmkill", dir);
        SinkTables tables = new SinkTables(db);
        try (LedgerRelay relay = relays.start();
                ChaosReport report = new ChaosReport("tm-terminated-minicluster", db)) {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .checkpointInterval(Duration.ofMillis(300))
                            .start("tm-terminated");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
            long takeoversAtStart = tables.ownershipTakeovers();

            // The workload runs until it is stopped below: it is writing when each kill lands and
            // while the job restores, whatever the machine's speed.
            WorkloadReport ledger;
            int midCheckpoint = 0;
            try (RunningWorkload workload =
                    RunningWorkload.start(Workloads.unbounded("tmkill", RATE), db)) {
                for (int kill = 1; kill <= KILLS; kill++) {
                    workload.awaitMore(BETWEEN_FAULTS);
                    TaskManagerKill k = faults.terminateTaskManagerMidCheckpoint(report);
                    midCheckpoint += k.hitCheckpointInFlight() ? 1 : 0;
                    TotalsInvariant.awaitExactAfter(k.recovery(), workload, db);
                }
                workload.awaitMore(BETWEEN_FAULTS);
                ledger = workload.stopAndDrain();
            }
            Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);

            long flushes = tables.ownershipTakeovers() - takeoversAtStart;
            report.figure("payments", ledger.started());
            report.figure("task managers terminated", KILLS);
            report.figure("kills that failed the checkpoint in progress", midCheckpoint);
            report.figure("restores", faults.restores());
            report.figure("failed checkpoints", faults.failedCheckpoints());
            report.figure("sink subtask flushes (takeovers)", flushes);
            report.figure("late events", tables.count("late_events"));
            report.figure("result", comparison.summary());

            report.close();
            assertThat(midCheckpoint).as("kills that hit a checkpoint in flight").isPositive();
            assertThat(faults.restores()).isGreaterThanOrEqualTo(KILLS);
            // every restore flushes both sink subtasks
            assertThat(flushes).isGreaterThanOrEqualTo(2L * KILLS);
            job.cancel().get();
        } finally {
            relays.dropSlot();
        }
    }
}
