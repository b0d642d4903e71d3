package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.JobMetrics;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.ChildJvm;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay, a child JVM, killed hard while the job runs: SIGKILL twice and once halted right after
 * Kafka acknowledged a batch and before its positions were committed. The restarted relay re-sends
 * what followed its last commit; the job's dedup drops every re-sent counted change, and the totals
 * stay exact with nothing in late_events.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class RelayKilledHardITCase {

    private static final InMemoryReporter METRICS = InMemoryReporter.create();
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.oneTaskManager(2, METRICS.addToConfiguration(new Configuration()));

    private final Path dir = WorkDirs.fresh("relay-killed");

    @Test
    void reSentChangesAreDroppedByDedupAndTotalsStayExact(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "relaykill", dir);
        String topic = relays.topic();
        Path logs = dir.resolve("logs");
        SinkTables tables = new SinkTables(db);
        ChildJvm relay = relays.startProcess(logs.resolve("relay-1.log"));
        try {
            await("the relay's replication slot active")
                    .atMost(Duration.ofMinutes(5))
                    .until(relays::slotActive);
            JobClient job =
                    PipelineJob.over(db, kafka.servers(), topic, dir.resolve("checkpoints"))
                            .start("relay-killed");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(Duration.ofMinutes(5));
            ChaosReport report = new ChaosReport("relay-killed", db);
            // Event time at 0.5 s per payment: what a restarted relay re-sends (the tail after its
            // last offset commit) stays well within the 2 h dedup horizon, as it does at a real
            // pace. At 5 s per payment and 1,500 payments/s, 2 h of event time pass in one wall
            // second, and a re-sent copy would be judged late instead of a duplicate.
            CompletableFuture<WorkloadReport> workload =
                    Workloads.runAsync(
                            Workloads.options("relaykill", 20_000, 1_500)
                                    .clock(
                                            EventClock.simulated(
                                                    Workloads.START, Duration.ofMillis(500))),
                            db);

            // 1. SIGKILL while streaming.
            await("8,000 records in the topic")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> KafkaTopics.size(kafka.servers(), topic) > 8_000);
            report.mark("kill", "SIGKILL of the relay while streaming");
            relay.kill();
            await("the killed relay's slot released")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> !relays.slotActive());

            // 2. Halt after Kafka acknowledged 2,000 changes, before their offsets are committed.
            relay =
                    relays.startProcess(
                            logs.resolve("relay-2.log"), "--test-halt-after-changes", "2000");
            assertThat(relay.waitFor(300)).as("halted by the test hook").isEqualTo(99);
            report.mark("kill", "relay halted between Kafka ack and offset commit");
            await("the halted relay's slot released")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> !relays.slotActive());

            // 3. SIGKILL again while catching up.
            relay = relays.startProcess(logs.resolve("relay-3.log"));
            long before = KafkaTopics.size(kafka.servers(), topic);
            await("6,000 more records in the topic")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> KafkaTopics.size(kafka.servers(), topic) > before + 6_000);
            report.mark("kill", "SIGKILL of the relay while catching up");
            relay.kill();
            await("the killed relay's slot released")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> !relays.slotActive());

            // 4. A last relay to the end.
            relay = relays.startProcess(logs.resolve("relay-4.log"));
            report.mark("restart", "last relay");
            WorkloadReport ledger = workload.get();
            Comparison comparison =
                    TotalsInvariant.awaitHoldsWithNothingLate(db, Duration.ofMinutes(5));

            long records = 0;
            long duplicates = 0;
            long countedDuplicates = 0;
            Set<String> seen = new HashSet<>();
            for (ConsumerRecord<byte[], byte[]> r : KafkaTopics.readAll(kafka.servers(), topic)) {
                JsonNode value = JSON.readTree(r.value());
                records++;
                String id = new String(r.key()) + "@" + value.path("source").path("lsn").asLong();
                if (!seen.add(id)) {
                    duplicates++;
                    if ("SUCCEEDED".equals(value.path("after").path("state").asText())) {
                        countedDuplicates++;
                    }
                }
            }
            long dropped =
                    new JobMetrics(METRICS)
                            .values(job.getJobID(), "duplicatesDropped").stream()
                                    .mapToLong(Long::longValue)
                                    .sum();
            report.figure("payments", ledger.started());
            report.figure("relay kills", 3);
            report.figure("records in topic", records);
            report.figure("re-sent by the relay (duplicates)", duplicates);
            report.figure("re-sent SUCCEEDED changes", countedDuplicates);
            report.figure("dropped by dedup", dropped);
            report.figure("late events", tables.count("late_events"));
            report.figure("result", comparison.summary());
            report.close();

            assertThat(duplicates).as("changes the relay sent twice").isPositive();
            assertThat(countedDuplicates).as("counted changes sent twice").isPositive();
            assertThat(dropped).isEqualTo(countedDuplicates);
            assertThat(faults.restores()).isZero();
            job.cancel().get();
        } finally {
            relay.close();
            relays.dropSlot();
        }
    }
}
