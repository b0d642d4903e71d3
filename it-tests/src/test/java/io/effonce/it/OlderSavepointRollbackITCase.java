package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.CommittedHistory;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SortedMap;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one time the committed totals step back: an operator restores an older savepoint. After the
 * savepoint the job committed more payments — changes to the savepoint's keys and keys it lacks.
 * The restored job's sinks roll committed back to exactly the savepoint's values (the lacking keys
 * removed) before the replay commits anything; the replay's first checkpoint brings committed to
 * the ledger again.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class OlderSavepointRollbackITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    private static final Duration TIMEOUT = TotalsInvariant.TIMEOUT;

    @Test
    void restoringAnOlderSavepointRollsCommittedBackExactlyThenTheReplayCatchesUp(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Path dir = WorkDirs.fresh("older-savepoint");
        Relays relays = new Relays(db, kafka.servers(), "oldsp", dir);
        LedgerOracle oracle = new LedgerOracle(db);
        try (LedgerRelay relay = relays.start()) {
            PipelineJob pipeline =
                    PipelineJob.over(
                            db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"));
            JobClient first = pipeline.start("older-savepoint-v1");
            new MiniClusterFaults(cluster, first.getJobID()).awaitAllTasksRunning(TIMEOUT);
            WorkloadReport before =
                    Workloads.runAsync(Workloads.options("oldsp", 1_500, 0), db).get();
            TotalsInvariant.awaitCommittedHolds(db, TIMEOUT);
            SortedMap<MerchantDay, Total> atSavepoint = oracle.committedTotals();
            // Nothing arrives between the committed totals read and the savepoint: they are its.
            String savepoint =
                    first.triggerSavepoint(
                                    dir.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();

            // Later the same day (the savepoint's keys change) and the next day (new keys).
            Workloads.runAsync(
                            Workloads.options(
                                    "oldsp2",
                                    1_000,
                                    0,
                                    before.lastEventTime().plus(Duration.ofMinutes(1))),
                            db)
                    .get();
            Workloads.runAsync(
                            Workloads.options(
                                    "oldsp3",
                                    500,
                                    0,
                                    before.lastEventTime().plus(Duration.ofHours(20))),
                            db)
                    .get();
            TotalsInvariant.awaitCommittedHolds(db, TIMEOUT);
            SortedMap<MerchantDay, Total> later = oracle.committedTotals();
            assertThat(later.keySet())
                    .as("keys the savepoint lacks")
                    .containsAll(atSavepoint.keySet());
            assertThat(later.size()).isGreaterThan(atSavepoint.size());
            assertThat(
                            atSavepoint.keySet().stream()
                                    .filter(k -> !later.get(k).equals(atSavepoint.get(k))))
                    .as("savepoint keys that changed later")
                    .isNotEmpty();
            first.cancel().get();
            CommittedHistory history = CommittedHistory.record(db);

            // Checkpoints of the restored job may come at any time after its tasks run (Flink 2.3
            // starts the scheduler then, with only the minimum pause as delay): whether the test
            // reads committed before or after the first of them is up to the machine. What the
            // database did is not: the history shows the rollback, then the replay's commits.
            JobClient restored =
                    pipeline.fromSavepoint(savepoint)
                            .checkpointInterval(Duration.ofHours(1))
                            .start("older-savepoint-v2");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, restored.getJobID());
            faults.awaitAllTasksRunning(TIMEOUT);
            assertThat(
                            new SinkTables(db)
                                    .number(
                                            "SELECT last_restored_checkpoint FROM"
                                                    + " committed_progress"))
                    .as("the restore recorded in committed_progress")
                    .isPositive();

            TotalsInvariant.awaitHolds(db, TIMEOUT); // the replay, in the live table
            cluster.triggerCheckpoint(restored.getJobID()).get();
            TotalsInvariant.awaitCommittedHolds(db, TIMEOUT);
            assertThat(oracle.committedTotals()).isEqualTo(later);
            assertThat(history.passedThrough(later, atSavepoint))
                    .as(
                            "committed held exactly the savepoint's totals between the rollback and"
                                    + " the replay's first commit (%,d changes recorded)",
                            history.changes())
                    .isTrue();
            restored.cancel().get();
        } finally {
            relays.dropSlot();
        }
    }
}
