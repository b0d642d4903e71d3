package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink's database goes back in time while the job runs, with no other fault: its tables and
 * sequences are put back to a copy taken at least three completed checkpoints earlier, after a day
 * that was still open at the copy has become final (its final rows were written in the lost
 * window), and the sink's sessions end, as when an asynchronous standby is promoted. The ledger and
 * the relay are untouched. The sink notices at its next write transaction, the task fails, the
 * restore rewrites the live and the committed tables from state; the live, committed and final
 * tables then equal the ledger. The report gives the time from the rollback to exact.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class SinkDatabaseWentBackITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private static final int CHECKPOINTS_LOST = 3;

    private final Path dir = WorkDirs.fresh("sink-database-went-back");

    @Test
    void theLiveCommittedAndFinalTablesEndExactAfterTheSinkDatabaseLostThreeCheckpoints(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "wentback", dir);
        SinkTables tables = new SinkTables(db);
        LedgerRelay relay = relays.start();
        try (RunningWorkload workload =
                RunningWorkload.start(Workloads.unbounded("wentback", 1_000), db)) {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .start("sink-database-went-back");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
            ChaosReport report = new ChaosReport("sink-database-went-back", db);

            await("a final day committed")
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(() -> finalThrough(tables) != null);
            long committedAtCopy = committedCheckpoint(tables);
            LocalDate openAtCopy =
                    LocalDate.parse(
                            tables.text(
                                    "SELECT max(day)::text FROM merchant_daily_totals_committed"));
            SinkDatabaseRollback standby = SinkDatabaseRollback.copy(db);
            report.mark("other", "copied the sink's tables at committed " + committedAtCopy);

            await(CHECKPOINTS_LOST + " more checkpoints committed and day " + openAtCopy + " final")
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(
                            () ->
                                    committedCheckpoint(tables)
                                                    >= committedAtCopy + CHECKPOINTS_LOST
                                            && !LocalDate.parse(finalThrough(tables))
                                                    .isBefore(openAtCopy));
            long lostFinalRows =
                    tables.number(
                            "SELECT count(*) FROM merchant_daily_totals_committed c"
                                    + " LEFT JOIN rollback_copy.merchant_daily_totals_committed o"
                                    + " USING (merchant_id, day, currency)"
                                    + " WHERE c.day <= '"
                                    + openAtCopy
                                    + "' AND c.total_minor IS DISTINCT FROM o.total_minor");
            assertThat(lostFinalRows)
                    .as("final rows of day %s and before written after the copy", openAtCopy)
                    .isPositive();

            long restoresBefore = faults.restores();
            long committedBefore = committedCheckpoint(tables);
            ChaosReport.Recovery recovery =
                    report.fault(
                            "restart",
                            "sink database back from committed "
                                    + committedBefore
                                    + " to "
                                    + committedAtCopy);
            standby.restore();
            faults.awaitRestoredAndRunning(restoresBefore, MiniClusterFaults.TIMEOUT);
            recovery.running("job running, restored " + faults.restores() + " times");
            assertThat(faults.lastFailure())
                    .as("the task failed on the sink's check, not on a lost connection")
                    .contains("LostWritesException")
                    .contains("went back in time");
            recovery.checkpointed(faults.awaitCheckpointAfter(faults.latestCompletedId()));
            workload.awaitMore(1_000);

            AtomicReference<Comparison> exact = new AtomicReference<>();
            workload.whilePaused(
                    () -> {
                        exact.set(TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT));
                        TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                        LedgerOracle oracle = new LedgerOracle(db);
                        await("the final view equal to the ledger")
                                .atMost(TotalsInvariant.TIMEOUT)
                                .until(() -> oracle.finalTotals().equals(oracle.ledgerTotals()));
                        recovery.exact();
                    });
            TotalsInvariant.assertSinkAloneHolds(db);
            report.figure("checkpoints lost", committedBefore - committedAtCopy);
            report.figure("final rows lost", lostFinalRows);
            report.figure("restores", faults.restores() - restoresBefore);
            report.figure("result", exact.get().summary());
            report.close();
            job.cancel().get();
        } finally {
            relay.close();
            relays.dropSlot();
        }
    }

    private static long committedCheckpoint(SinkTables tables) {
        return tables.number(
                "SELECT coalesce(min(checkpoint_id), 0) FROM committed_progress"
                        + " WHERE sink_table = 'merchant_daily_totals'");
    }

    private static String finalThrough(SinkTables tables) {
        return tables.text(
                "SELECT final_through::text FROM committed_progress"
                        + " WHERE sink_table = 'merchant_daily_totals'");
    }
}
