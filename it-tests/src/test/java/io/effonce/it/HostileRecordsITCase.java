package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.job.decode.BadRecords;
import io.effonce.job.decode.HostileRecords;
import io.effonce.job.testutils.Topics;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hundreds of generated hostile records (mutated envelopes of every kind, values no sink column or
 * index can hold) published among the relay's good changes while the workload runs, with restarts
 * off: the job never fails, every hostile record is one {@code dead_letters} row, and the totals
 * equal the ledger.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class HostileRecordsITCase {

    private static final int GENERATED = 400;

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private final Path dir = WorkDirs.fresh("hostile-records");

    @Test
    void noRecordOfAnyShapeFailsTheJobOrBendsTheTotals(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        List<byte[]> hostile = new ArrayList<>(HostileRecords.refused(20261130L, GENERATED));
        // And the hand-made kinds, among them values the sink tables cannot hold: a half-megabyte
        // merchant id, a NUL byte in an id, a time beyond any DATE.
        hostile.add(BadRecords.HUGE_MERCHANT.value().getBytes(StandardCharsets.UTF_8));
        for (BadRecords.Bad bad : BadRecords.ALL) {
            hostile.add(bad.value().getBytes(StandardCharsets.UTF_8));
        }
        Relays relays = new Relays(db, kafka.servers(), "hostile", dir);
        SinkTables tables = new SinkTables(db);
        try (LedgerRelay relay = relays.start();
                RunningWorkload workload =
                        RunningWorkload.start(Workloads.unbounded("hostile", 1_000), db)) {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .restarts(false)
                            .start("hostile-records");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
            // In two halves, each among changes in flight.
            workload.awaitMore(1_000);
            Topics.publishRaw(
                    kafka.servers(), relays.topic(), "hostile", hostile.subList(0, GENERATED / 2));
            workload.awaitMore(1_000);
            Topics.publishRaw(
                    kafka.servers(),
                    relays.topic(),
                    "hostile",
                    hostile.subList(GENERATED / 2, hostile.size()));
            workload.awaitMore(1_000);
            workload.stopAndDrain();

            TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);
            await("a dead letter for every hostile record")
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(() -> tables.count("dead_letters") >= hostile.size());
            assertThat(tables.count("dead_letters")).isEqualTo(hostile.size());
            assertThat(tables.deadLetters().values())
                    .allSatisfy(reason -> assertThat(reason).matches("(?s)[a-z-]+(: .*)?"));
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            assertThat(faults.restores()).isZero();
            job.cancel().get();
        } finally {
            relays.dropSlot();
        }
    }
}
