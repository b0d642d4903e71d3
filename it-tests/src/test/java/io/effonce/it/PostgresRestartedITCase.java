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
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgreSQL (ledger and sink tables on one server) restarted while the job writes: the sink
 * retries on a new connection or its task fails and restores; the relay is stopped for the restart
 * (a fast shutdown waits for its walsender) and started again from its offsets; nothing committed
 * to the ledger is lost and nothing is counted twice.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class PostgresRestartedITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private final Path dir = WorkDirs.fresh("postgres-restarted");

    @Test
    void totalsAreExactAfterPostgresRestartsMidRun(
            PostgresEndpoint db,
            EmbeddedPostgres server,
            KafkaBootstrap kafka,
            @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "pgrestart", dir);
        SinkTables tables = new SinkTables(db);
        LedgerRelay relay = relays.start();
        try {
            JobClient job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .start("postgres-restarted");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
            ChaosReport report = new ChaosReport("postgres-restarted", db);
            // The workload runs until the restart breaks its connection: it is writing when the
            // server goes down, whatever the machine's speed.
            long first;
            try (RunningWorkload workload =
                    RunningWorkload.start(Workloads.unbounded("pgrestart", 1_000), db)) {
                workload.awaitMore(2_000);
                await("totals rows written by the job")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(() -> tables.count("merchant_daily_totals") > 200);
                workload.awaitMore(1_000);

                // A fast shutdown waits for connected walsenders, so the relay goes first (it
                // would lose its replication connection anyway); the job keeps writing.
                relay.close();
                long checkpointBefore = faults.latestCompletedId();
                ChaosReport.Recovery recovery =
                        report.fault("restart", "PostgreSQL stopped and started");
                server.restart();
                Throwable lost = workload.awaitFailure();
                report.mark("other", "workload connection lost: " + lost.getMessage());
                first = workload.started();
                relay = relays.start();
                report.mark("restart", "relay restarted from its offsets");
                faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
                recovery.running("job running, restored " + faults.restores() + " times");
                recovery.checkpointed(faults.awaitCheckpointAfter(checkpointBefore));
                // Event time goes on after the first part (whose watermark is hours past START).
                WorkloadReport second = Workloads.runAfterFault("pgrestart2", 5_000, db);
                Comparison comparison =
                        TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);
                recovery.exact();
                report.figure("payments", first + second.started());
                report.figure("restores", faults.restores());
                report.figure("sink takeovers", tables.ownershipTakeovers());
                report.figure("result", comparison.summary());
                report.close();
                // Every payment whose row committed is in the ledger the oracle read.
                assertThat(tables.count("payments")).isGreaterThanOrEqualTo(first + 5_000);
            }
            job.cancel().get();
        } finally {
            relay.close();
            relays.dropSlot();
        }
    }
}
