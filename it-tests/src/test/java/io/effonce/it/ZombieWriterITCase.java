package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
import io.effonce.job.DailyTotal;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.MerchantDayRows;
import io.effonce.sink.internal.AttemptId;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.FencedException;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.TakeoverTerms;
import io.effonce.sink.internal.postgres.PostgresSinkStore;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A zombie writer beside the running job: a sink writer of an attempt that lost its task manager
 * but whose process still runs. It held the job's key groups (taking them fences the running job,
 * whose next write fails, so the job restores and takes them back with newer tokens, flushing);
 * then the zombie wakes up and writes. Every write it tries is refused by the fence, and the totals
 * stay exact.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class ZombieWriterITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private final Path dir = WorkDirs.fresh("zombie");

    @Test
    void aZombieWriterIsFencedAfterTheTakeoverAndTotalsStayExact(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "zombie", dir);
        SinkTables tables = new SinkTables(db);
        try (LedgerRelay relay = relays.start();
                // Runs until stopped after the zombie's refused writes: the takeover lands
                // mid-stream.
                RunningWorkload workload =
                        RunningWorkload.start(Workloads.unbounded("zombie", 1_000), db)) {
            PipelineJob pipeline =
                    PipelineJob.over(
                            db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"));
            JobClient job = pipeline.start("zombie");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
            await("totals rows written by the job")
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(() -> tables.count("merchant_daily_totals") > 50);

            // A completed checkpoint first, so the fenced job restores from it.
            faults.awaitMoreCheckpoints(1, MiniClusterFaults.TIMEOUT);

            long restoresBefore = faults.restores();
            try (var zombie =
                    new PostgresSinkStore<>(pipeline.storeConfig(), MerchantDayRows.MAPPING)) {
                // The failed attempt's writer (same run and parallelism, an attempt before the
                // restore) owned every key group: taken whatever the record says, as it was
                // before the job moved on (the start protocol would refuse this attempt today).
                String run =
                        tables.text(
                                "SELECT min(owner_job) FROM sink_fences"
                                        + " WHERE sink_table = 'merchant_daily_totals'");
                zombie.takeOwnership(
                        new KeyGroupSpan(0, 127),
                        new Claim(AttemptId.of(run, "sink 1/2 #0", 0, 2, 0), OptionalLong.empty()),
                        found -> TakeoverTerms.TAKE);
                faults.awaitRestoredAndRunning(restoresBefore, MiniClusterFaults.TIMEOUT);

                // It resumes after the takeover and writes a wrong total over a live key.
                LedgerOracle oracle = new LedgerOracle(db);
                await().atMost(MiniClusterFaults.TIMEOUT)
                        .until(() -> !oracle.sinkTotals().isEmpty());
                MerchantDay live = oracle.sinkTotals().firstKey();
                MerchantDayKey key =
                        new MerchantDayKey(live.merchantId(), live.day(), live.currency());
                int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, 128);
                StoredRow<MerchantDayKey, DailyTotal> wrong =
                        new StoredRow<>(key, new DailyTotal(1, 1), keyGroup, Long.MAX_VALUE);
                assertThatThrownBy(() -> zombie.write(List.of(wrong)))
                        .isInstanceOf(FencedException.class);
                assertThatThrownBy(
                                () ->
                                        zombie.delete(
                                                List.of(
                                                        StoredRow.tombstone(
                                                                key, keyGroup, Long.MAX_VALUE))))
                        .isInstanceOf(FencedException.class);
            }
            workload.awaitMore(1_000);
            workload.stopAndDrain();
            TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);
            assertThat(faults.restores()).isPositive();
            job.cancel().get();
        } finally {
            relays.dropSlot();
        }
    }
}
