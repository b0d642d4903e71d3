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
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kafka broker (the only one, holding the change topic and the job's offsets) stopped and
 * started again on the same data and port while the workload writes, the relay publishes and the
 * job reads: the relay's producer retries until the broker is back (or, if the relay stops, it is
 * started again from its offsets), the job's Kafka source reconnects (or its task fails and
 * restores from a checkpoint); nothing committed to the ledger is lost and nothing is counted
 * twice.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class KafkaBrokerRestartedITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private final Path dir = WorkDirs.fresh("kafka-restarted");

    @Test
    void totalsAreExactAfterTheBrokerRestartsMidRun(
            PostgresEndpoint db, EmbeddedKafka kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.bootstrapServers(), "kafkarestart", dir);
        SinkTables tables = new SinkTables(db);
        LedgerRelay relay = relays.start();
        try {
            JobClient job =
                    PipelineJob.over(
                                    db,
                                    kafka.bootstrapServers(),
                                    relays.topic(),
                                    dir.resolve("checkpoints"))
                            .start("kafka-restarted");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
            ChaosReport report = new ChaosReport("kafka-restarted", db);
            // The workload runs until it is stopped after the broker is back: it is writing while
            // the broker is away, whatever the machine's speed.
            WorkloadReport first;
            ChaosReport.Recovery recovery;
            try (RunningWorkload workload =
                    RunningWorkload.start(Workloads.unbounded("kafkarestart", 1_000), db)) {
                workload.awaitMore(2_000);
                await("totals rows written by the job")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(() -> tables.count("merchant_daily_totals") > 200);
                workload.awaitMore(1_000);

                // The relay and the job stay up: both must ride out the broker's absence.
                long checkpointBefore = faults.latestCompletedId();
                recovery = report.fault("restart", "Kafka broker stopped, down 3 s, started");
                kafka.restartBroker(Duration.ofSeconds(3));
                report.mark("other", "Kafka broker back at " + kafka.bootstrapServers());
                faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
                recovery.running("job running, restored " + faults.restores() + " times");
                recovery.checkpointed(faults.awaitCheckpointAfter(checkpointBefore));
                workload.awaitMore(2_000);
                first = workload.stopAndDrain();
            }
            if (!relay.isRunning()) {
                report.mark(
                        "restart",
                        "relay stopped ("
                                + relay.failure().map(Throwable::getMessage).orElse("no error")
                                + "); restarted from its offsets");
                relay.close();
                relay = relays.start();
            }
            // More changes after the restart, event time after the first part.
            WorkloadReport second = Workloads.runAfterFault("kafkarestart2", 5_000, db);

            Comparison comparison =
                    TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);
            recovery.exact();
            report.figure("payments", first.started() + second.started());
            report.figure("restores", faults.restores());
            report.figure("relay", relay.metrics());
            report.figure("result", comparison.summary());
            report.close();
            assertThat(tables.count("payments")).isEqualTo(first.started() + second.started());
            job.cancel().get();
        } finally {
            relay.close();
            relays.dropSlot();
        }
    }
}
