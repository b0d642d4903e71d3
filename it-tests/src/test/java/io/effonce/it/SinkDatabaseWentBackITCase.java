package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.feed.recount.LedgerRecount;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.sink.FlushableSinkOptions;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ExecutionException;
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
        goBackWhileTheJobRuns(db, kafka, cluster, "wentback", null);
    }

    /**
     * The same without retired values kept ({@code sink.retired-retention} 0), as after a database
     * that went back further than the retention: the final rows lost in the window are in no state,
     * so live and committed stay without them. The restore recorded its repair ({@code
     * sink_repairs}): the recount takes those final days as due although no change of theirs was
     * late, and the final view equals the ledger once they are recounted.
     */
    @Test
    void finalRowsNoStateHoldsComeBackThroughTheRecountOfTheRepairedDays(
            PostgresEndpoint classDb, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        // A ledger and sink tables of its own: the other test's rows would be refused as a fresh
        // start's, and its payments are not this relay's.
        PostgresEndpoint db = LocalServices.newDatabase(classDb, "effonce_wentback0");
        SchemaTool.applyAll(db);
        goBackWhileTheJobRuns(db, kafka, cluster, "wentback0", Duration.ZERO);
        LedgerOracle oracle = new LedgerOracle(db);
        assertThat(Comparison.of(oracle.ledgerTotals(), oracle.committedTotals()).matches())
                .as("committed without the lost final rows no state holds")
                .isFalse();
        List<LocalDate> due;
        try (Connection c = db.connect()) {
            LedgerRecount recount = new LedgerRecount(c, ZoneOffset.UTC);
            due = recount.daysWithNewLateEvents().due();
            assertThat(due).as("final days after the recorded repair").isNotEmpty();
            for (LocalDate day : due) {
                recount.recount(day, false);
            }
        }
        await("the final view equal to the ledger after recounting " + due)
                .atMost(TotalsInvariant.TIMEOUT)
                .until(() -> oracle.finalTotals().equals(oracle.ledgerTotals()));
        assertThat(new SinkTables(db).count("late_events")).as("late changes").isZero();
    }

    /**
     * Runs the job with the workload, puts the sink's database back (see the class comment), and
     * waits until live and committed hold the ledger's totals again — with {@code retention} null,
     * the final view too — marking the recovery exact in the chaos report.
     */
    private void goBackWhileTheJobRuns(
            PostgresEndpoint db,
            KafkaBootstrap kafka,
            MiniCluster cluster,
            String name,
            Duration retention)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), name, dir);
        SinkTables tables = new SinkTables(db);
        LedgerRelay relay = relays.start();
        try (RunningWorkload workload =
                RunningWorkload.start(Workloads.unbounded(name, 1_000), db)) {
            PipelineJob pipeline =
                    PipelineJob.over(
                            db,
                            kafka.servers(),
                            relays.topic(),
                            dir.resolve(name + "-checkpoints"));
            if (retention != null) {
                pipeline.set(FlushableSinkOptions.RETIRED_RETENTION, retention);
            }
            JobClient job = pipeline.start("sink-database-went-back");
            try {
                MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
                faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
                ChaosReport report = new ChaosReport(name, db);

                await("a final day committed")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(() -> tables.finalThrough() != null);
                long committedAtCopy = tables.committedCheckpoint();
                LocalDate openAtCopy =
                        LocalDate.parse(
                                tables.text(
                                        "SELECT max(day)::text FROM merchant_daily_totals_committed"));
                SinkDatabaseRollback standby = SinkDatabaseRollback.copy(db);
                report.mark("other", "copied the sink's tables at committed " + committedAtCopy);

                await(
                                CHECKPOINTS_LOST
                                        + " more checkpoints committed and day "
                                        + openAtCopy
                                        + " final")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(
                                () ->
                                        tables.committedCheckpoint()
                                                        >= committedAtCopy + CHECKPOINTS_LOST
                                                && !LocalDate.parse(tables.finalThrough())
                                                        .isBefore(openAtCopy));
                long lostFinalRows =
                        tables.number(
                                "SELECT count(*) FROM merchant_daily_totals_committed c"
                                        + " LEFT JOIN "
                                        + standby.schema()
                                        + ".merchant_daily_totals_committed o"
                                        + " USING (merchant_id, day, currency)"
                                        + " WHERE c.day <= '"
                                        + openAtCopy
                                        + "' AND c.total_minor IS DISTINCT FROM o.total_minor");
                assertThat(lostFinalRows)
                        .as("final rows of day %s and before written after the copy", openAtCopy)
                        .isPositive();

                long restoresBefore = faults.restores();
                long committedBefore = tables.committedCheckpoint();
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
                if (retention == null) {
                    workload.whilePaused(
                            () -> {
                                exact.set(TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT));
                                TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                                LedgerOracle oracle = new LedgerOracle(db);
                                await("the final view equal to the ledger")
                                        .atMost(TotalsInvariant.TIMEOUT)
                                        .until(
                                                () ->
                                                        oracle.finalTotals()
                                                                .equals(oracle.ledgerTotals()));
                                recovery.exact();
                                TotalsInvariant.assertSinkAloneHolds(db);
                            });
                } else {
                    workload.stopAndDrain();
                    // Every open day's totals are in state and come back; the final rows lost in
                    // the
                    // window do not: wait until everything but them is there.
                    LedgerOracle oracle = new LedgerOracle(db);
                    await("every total but the lost final rows back in the committed table")
                            .atMost(TotalsInvariant.TIMEOUT)
                            .pollInterval(Duration.ofMillis(500))
                            .until(
                                    () -> {
                                        Comparison c =
                                                Comparison.of(
                                                        oracle.ledgerTotals(),
                                                        oracle.committedTotals());
                                        exact.set(c);
                                        return tables.committedCheckpoint() > committedBefore
                                                && onlyFinalDaysDiffer(c, tables.finalThrough());
                                    });
                }
                report.figure("checkpoints lost", committedBefore - committedAtCopy);
                report.figure("final rows lost", lostFinalRows);
                report.figure("restores", faults.restores() - restoresBefore);
                report.figure("result", exact.get().summary());
                report.close();
            } finally {
                // A failed check must not leave the job holding the shared cluster's slots.
                cancel(job);
            }
        } finally {
            relay.close();
            relays.dropSlot();
        }
    }

    /** Cancels the job unless it has ended already (a failure that ended it stays the one seen). */
    private static void cancel(JobClient job) throws InterruptedException {
        try {
            job.cancel().get();
        } catch (ExecutionException e) {
            // ended already: it holds no slots
        }
    }

    /** Whether every difference is on a final day (a lost final row no state holds). */
    private static boolean onlyFinalDaysDiffer(Comparison c, String finalThrough) {
        if (finalThrough == null) {
            return false; // no final day known (yet)
        }
        LocalDate last = LocalDate.parse(finalThrough);
        return c.differences().stream().allMatch(d -> !d.key().day().isAfter(last));
    }
}
