package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.dedup.DedupOptions;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.OldChangeCopy;
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
import io.effonce.testing.oracle.Total;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * dedup/README.md, rule 4: Flink does not checkpoint watermarks, so right after a restore the live
 * watermark is gone. A copy of an old SUCCEEDED change, re-published then, whose ID already expired
 * from the dedup state, must still be rejected as late: the watermark floor (operator state) does
 * that. The counterfactual runs the same scenario with the floor off and shows the copy counted
 * twice.
 *
 * <p>The merchant stage keeps a day's ids until the day is final, so the case is a copy of a day
 * already retired: the workload starts in the evening of 1 March and runs past 02:00 on 2 March
 * (end of day + the 2 h horizon), so 1 March is final and its totals and ids are gone before the
 * restore. Without the floor that copy starts the day afresh and the sink sets its total to the
 * copy alone ({@code RetiredDayWithoutTheFloor}).
 *
 * <p>The copy is a duplicate, so with the floor the sink alone equals the ledger and the copy is
 * recorded once in {@code late_events} (the batch recount matches late events to the ledger by
 * event ID, so it does not add it again).
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class LateCopyAfterRestoreITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    /**
     * Event times from 18:00 on 1 March: 8,000 payments 5 s apart end near 05:00 on 2 March, past
     * the end of 1 March + the horizon, so 1 March is final before the restore.
     */
    private static final Instant EVENING = Workloads.START.plus(Duration.ofHours(12));

    /** The earliest SUCCEEDED change: its copy is hours behind the watermark at the restore. */
    private static OldChangeCopy restoreThenRepublishAnOldCopy(
            PostgresEndpoint db,
            KafkaBootstrap kafka,
            MiniCluster cluster,
            String name,
            boolean floor,
            Instant start)
            throws Exception {
        Path dir = WorkDirs.fresh(name);
        Relays relays = new Relays(db, kafka.servers(), name, dir);
        try (LedgerRelay relay = relays.start()) {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .set(DedupOptions.WATERMARK_FLOOR_ENABLED, floor)
                            .start(name);
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(Duration.ofMinutes(5));
            // 8,000 payments, 5 s apart: the watermark ends 11 h after start.
            Workloads.runAsync(Workloads.options(name, 8_000, 0, start), db).get();
            TotalsInvariant.awaitHolds(db, Duration.ofMinutes(5));
            faults.awaitMoreCheckpoints(2, Duration.ofMinutes(5));

            OldChangeCopy copy = OldChangeCopy.oldestSucceeded(db, kafka.servers(), relays.topic());
            try (ChaosReport report = new ChaosReport("late-copy-" + name, db)) {
                faults.terminateTaskManagerMidCheckpoint(report);
            }
            copy.republish(kafka.servers(), relays.topic());
            return copy;
        } finally {
            relays.dropSlot();
        }
    }

    @Nested
    class WithTheFloor {

        /** A copy of a day retired before the restore. */
        @Test
        void lateCopyOfARetiredDayAfterRestoreIsRejectedByTheFloor(
                PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
                throws Exception {
            OldChangeCopy copy =
                    restoreThenRepublishAnOldCopy(db, kafka, cluster, "floor", true, EVENING);
            SinkTables tables = new SinkTables(db);
            await("the copy in late_events")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> tables.lateEventIds().contains(copy.eventId()));
            TotalsInvariant.assertSinkAloneHolds(db);
            assertThat(tables.lateEventIds()).containsExactly(copy.eventId());
        }
    }

    @Nested
    class RetiredDayWithoutTheFloor {

        @Test
        void aCopyOfARetiredDaySetsItsTotalToTheCopyAloneWithoutTheFloor(
                PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
                throws Exception {
            OldChangeCopy copy =
                    restoreThenRepublishAnOldCopy(
                            db, kafka, cluster, "retired_nofloor", false, EVENING);
            LedgerOracle oracle = new LedgerOracle(db);
            Total ledger = oracle.ledgerTotals().get(copy.key());
            assertThat(ledger.payments())
                    .as("payments of the copy's merchant-day")
                    .isGreaterThan(1);
            Total copyAlone = new Total(copy.amount(), 1);
            await("the copy's merchant-day set to the copy alone (ledger: %s)".formatted(ledger))
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> copyAlone.equals(oracle.sinkTotals().get(copy.key())));
            assertThat(new SinkTables(db).lateEventIds()).isEmpty();
        }
    }
}
