package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TaskManagerKill;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.job.JobOptions;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.ConnectWorker;
import io.effonce.testing.kafka.KafkaTopics;
import io.effonce.testing.kafka.LedgerConnector;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.WorkloadReport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job over what Debezium's PostgreSQL connector writes when it runs on a Kafka Connect cluster
 * (distributed mode, its own JVM) instead of the relay: JSON converters with schemas on and off,
 * heartbeats on Debezium's own heartbeat topic (never on the changes topic's partitions), the
 * records stamped by the broker as the job's README asks. One run per converter form: an existing
 * ledger bootstraps from the connector's initial snapshot while payments keep coming, the Connect
 * worker is killed (SIGKILL: what its task sent since its last offset flush is sent again) and a
 * new one takes the task over, a TaskManager is terminated mid-checkpoint; the totals equal the
 * ledger with nothing late. Then the ledger goes quiet: no change and no heartbeat on any partition
 * of the changes topic, and event time still moves past the last change, from the heartbeat topic
 * alone.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class DebeziumOnKafkaConnectITCase {

    private static final int HISTORY_PAYMENTS = 3_000;
    private static final double RATE = 300;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    private final Path dir = WorkDirs.fresh("debezium-on-connect");

    @Test
    void withConverterSchemas(
            PostgresEndpoint base, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        totalsEqualTheLedgerThroughSnapshotWorkerKillAndTaskManagerKill(true, base, kafka, cluster);
    }

    /**
     * The same without converter schemas; the decoder's unit tests read both forms every run, so
     * this run of the whole path goes with -Deffonce.soak=true (the root pom's "long").
     */
    @Tag("long")
    @Test
    void withoutConverterSchemas(
            PostgresEndpoint base, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        totalsEqualTheLedgerThroughSnapshotWorkerKillAndTaskManagerKill(
                false, base, kafka, cluster);
    }

    private void totalsEqualTheLedgerThroughSnapshotWorkerKillAndTaskManagerKill(
            boolean schemas,
            PostgresEndpoint base,
            KafkaBootstrap kafka,
            @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        String prefix = schemas ? "cxschemas" : "cxplain";
        PostgresEndpoint db = LocalServices.newDatabase(base, prefix);
        SchemaTool.applyAll(db);
        String topic = prefix + ".public.payments";
        String heartbeats = LedgerConnector.heartbeatTopic(prefix);
        // Created as job/README asks of a Connect user: the broker stamps every record.
        KafkaTopics.create(kafka.servers(), topic, 3);
        KafkaTopics.create(kafka.servers(), heartbeats, 1);
        WorkloadReport history =
                Workloads.runAsync(
                                Workloads.options(
                                        prefix + "-history",
                                        HISTORY_PAYMENTS,
                                        0,
                                        Instant.now().minus(Duration.ofDays(3))),
                                db)
                        .join();
        String group = prefix + "-connect";
        SinkTables sink = new SinkTables(db);
        try (ConnectWorker worker =
                        ConnectWorker.start(
                                kafka.servers(), group, schemas, Duration.ofSeconds(1), dir);
                ChaosReport report = new ChaosReport("debezium-on-connect-" + prefix, db)) {
            worker.putConnector(prefix, LedgerConnector.config(db, prefix, dir));
            worker.awaitRunning(prefix);
            await("the connector's initial snapshot on " + topic)
                    .atMost(TIMEOUT)
                    .until(() -> KafkaTopics.size(kafka.servers(), topic) >= history.started());
            JobClient job =
                    PipelineJob.over(
                                    db,
                                    kafka.servers(),
                                    topic + ";" + heartbeats,
                                    dir.resolve(prefix + "-checkpoints"))
                            .set(JobOptions.IDLENESS, Duration.ofSeconds(2))
                            .checkpointInterval(Duration.ofMillis(300))
                            .start("debezium-on-connect-" + prefix);
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);

            WorkloadReport ledger;
            long delivered;
            // Event time is the wall clock, as in production: Debezium's heartbeats carry it.
            try (RunningWorkload workload =
                    RunningWorkload.start(
                            Workloads.unbounded(prefix, RATE)
                                    .clock(EventClock.accelerated(Instant.now(), 1)),
                            db)) {
                workload.awaitMore(1_000);
                // Past the snapshot in the recorded offsets: a worker killed before that would
                // take the whole snapshot again.
                awaitStreamingOffset(kafka.servers(), group, prefix);
                long onTopic = KafkaTopics.size(kafka.servers(), topic);
                worker.kill();
                report.mark("fault", "Connect worker killed");
                workload.awaitMore(500);
                worker.restart();
                worker.awaitRunning(prefix);
                await("the new Connect worker streaming the changes made without one")
                        .atMost(TIMEOUT)
                        .until(() -> KafkaTopics.size(kafka.servers(), topic) > onTopic + 500);
                workload.awaitMore(1_000);
                TaskManagerKill kill = faults.terminateTaskManagerMidCheckpoint(report);
                TotalsInvariant.awaitExactAfter(kill.recovery(), workload, db);
                workload.awaitMore(1_000);
                ledger = workload.stopAndDrain();
            }
            Comparison exact = TotalsInvariant.awaitHoldsWithNothingLate(db, TIMEOUT);

            // The ledger is quiet now: nothing reaches the changes topic, and nothing but
            // Debezium's heartbeats can move event time past the last change.
            Instant lastChange =
                    Instant.parse(
                            sink.text(
                                    "SELECT to_char(max(updated_at) AT TIME ZONE 'UTC',"
                                            + " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM payments"));
            await("committed event time past the last change (" + lastChange + ")")
                    .atMost(TIMEOUT)
                    .until(() -> committedWatermark(sink).isAfter(lastChange));
            delivered = KafkaTopics.size(kafka.servers(), topic);

            report.figure("converter schemas", schemas ? "on" : "off");
            report.figure("payments in the history", history.started());
            report.figure("payments while streaming", ledger.started());
            report.figure("records on the changes topic", delivered);
            report.figure("records sent again", sentAgain(kafka.servers(), topic));
            report.figure("restores", faults.restores());
            report.figure("result", exact.summary());
            report.close();
            assertThat(faults.restores()).isPositive();
            // Debezium's heartbeats are read as heartbeats, not refused as malformed changes.
            assertThat(sink.deadLetters()).isEmpty();
            assertThat(exact.keys()).isGreaterThan(100);
            worker.deleteConnector(prefix);
            job.cancel().get();
        } finally {
            dropSlot(db, prefix);
        }
    }

    /** Waits until the worker has recorded a source offset past the snapshot. */
    private static void awaitStreamingOffset(String kafka, String group, String prefix) {
        String topic = ConnectWorker.offsetsTopic(group);
        await("a streaming offset of " + prefix + " in " + topic)
                .atMost(TIMEOUT)
                .until(
                        () -> {
                            List<ConsumerRecord<byte[], byte[]>> offsets =
                                    KafkaTopics.readAll(kafka, topic);
                            if (offsets.isEmpty()) {
                                return false;
                            }
                            JsonNode last = JSON.readTree(offsets.get(offsets.size() - 1).value());
                            return last.has("lsn") && !last.path("snapshot").asBoolean(false);
                        });
    }

    /**
     * How many change records repeat one already on the topic (the same row version at the same WAL
     * position): what the killed worker's successor sent again.
     */
    private static long sentAgain(String kafka, String topic) throws IOException {
        Set<String> seen = new HashSet<>();
        long again = 0;
        for (ConsumerRecord<byte[], byte[]> r : KafkaTopics.readAll(kafka, topic)) {
            JsonNode value = JSON.readTree(r.value());
            JsonNode envelope = value.has("payload") ? value.get("payload") : value;
            String version =
                    envelope.path("after").path("payment_id").asText()
                            + "@"
                            + envelope.path("source").path("lsn").asText()
                            + "/"
                            + envelope.path("op").asText();
            again += seen.add(version) ? 0 : 1;
        }
        return again;
    }

    /** The smallest watermark a sink subtask committed with. */
    private static Instant committedWatermark(SinkTables sink) {
        String text =
                sink.text(
                        "SELECT to_char(min(watermark) AT TIME ZONE 'UTC',"
                                + " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM sink_progress"
                                + " WHERE sink_table = 'merchant_daily_totals'");
        return text == null ? Instant.MIN : Instant.parse(text);
    }

    private static void dropSlot(PostgresEndpoint db, String slot) {
        new SinkTables(db)
                .text(
                        "SELECT pg_drop_replication_slot(slot_name)::text FROM"
                                + " pg_replication_slots WHERE slot_name = '"
                                + slot
                                + "' AND NOT active");
    }
}
