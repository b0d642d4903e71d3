package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.Relays;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.local.EmbeddedPostgres;
import io.effonce.local.PostgresEndpoint;
import io.effonce.local.junit.KafkaExtension;
import io.effonce.local.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.local.junit.PostgresExtension;
import io.effonce.local.oracle.Comparison;
import io.effonce.local.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
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

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

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
            faults.awaitAllTasksRunning(Duration.ofMinutes(1));
            ChaosReport report = new ChaosReport("postgres-restarted", db);
            CompletableFuture<WorkloadReport> before =
                    Workloads.runAsync(Workloads.options("pgrestart", 30_000, 1_500), db);
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> tables.count("merchant_daily_totals") > 200);

            // A fast shutdown waits for connected walsenders, so the relay goes first (it would
            // lose its replication connection anyway); the job and the workload keep writing.
            relay.close();
            report.mark("restart", "PostgreSQL stopped and started");
            server.restart();
            try {
                before.get();
            } catch (ExecutionException expected) {
                report.mark(
                        "other", "workload connection lost: " + expected.getCause().getMessage());
            }
            relay = relays.start();
            report.mark("restart", "relay restarted from its offsets");
            // Event time goes on after the first part (whose watermark is hours past START).
            Workloads.runAfterFault("pgrestart2", 5_000, db);

            Comparison comparison =
                    TotalsInvariant.awaitHoldsWithNothingLate(db, Duration.ofMinutes(3));
            report.figure("restores", faults.restores());
            report.figure("sink takeovers", tables.ownershipTakeovers());
            report.figure("result", comparison.summary());
            report.close();
            assertThat(tables.count("payments")).isGreaterThan(5_000);
            job.cancel().get();
        } finally {
            relay.close();
            relays.dropSlot();
        }
    }
}
