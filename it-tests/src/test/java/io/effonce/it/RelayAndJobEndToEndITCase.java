package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.JobMetrics;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.job.decode.BadRecords;
import io.effonce.job.testutils.SyntheticLedger;
import io.effonce.job.testutils.Topics;
import io.effonce.sink.FlushableSinkOptions;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 6's end-to-end test: the relay streams a 20,000-payment ledger workload over two event-time
 * days into Kafka, the job runs on a MiniCluster against that topic and a real PostgreSQL, with
 * restarts switched off so that any failure fails the test.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class RelayAndJobEndToEndITCase {

    private static final Logger LOG = LoggerFactory.getLogger(RelayAndJobEndToEndITCase.class);
    private static final Instant START = Instant.parse("2025-03-01T06:00:00Z");
    private static final Duration HORIZON = Duration.ofHours(2); // dedup.horizon default

    private static final InMemoryReporter METRICS = InMemoryReporter.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.oneTaskManager(2, METRICS.addToConfiguration(new Configuration()));

    private final Path dir = WorkDirs.fresh("relay-and-job");

    @Test
    void totalsEqualTheLedgerBadRecordsBecomeDeadLettersAndHeartbeatsCloseTheDays(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "e2e", dir);
        PipelineJob pipeline =
                PipelineJob.over(db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                        .restarts(false)
                        // A retired day's final value is otherwise kept for an hour (the repair
                        // after a database that went back in time): the last check below counts
                        // what is left in state once every day retired.
                        .set(FlushableSinkOptions.RETIRED_RETENTION, Duration.ZERO);
        WorkloadReport report;
        JobClient job;
        try (LedgerRelay relay = relays.start()) {
            job = pipeline.start("e2e");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            faults.awaitAllTasksRunning(Duration.ofMinutes(5));

            CompletableFuture<WorkloadReport> workload =
                    CompletableFuture.supplyAsync(
                            () ->
                                    new LedgerWorkload(
                                                    WorkloadOptions.builder()
                                                            .count(20_000)
                                                            .scope("e2e")
                                                            .seed(6)
                                                            .clock(
                                                                    EventClock.simulated(
                                                                            START,
                                                                            Duration.ofSeconds(5)))
                                                            .build())
                                            .run(db));
            // Bad records among the relay's changes, while the workload runs.
            Topics.publish(
                    kafka.servers(),
                    relays.topic(),
                    BadRecords.ALL.stream()
                            .map(b -> new SyntheticLedger.Change("bad", b.value()))
                            .toList());
            report = workload.get();

            Comparison comparison =
                    TotalsInvariant.awaitHoldsWithNothingLate(db, Duration.ofMinutes(5));
            assertThat(new SinkTables(db).count("late_events")).isZero();
            assertThat(comparison.keys()).isGreaterThan(100);
            assertThat(
                            new SinkTables(db)
                                    .number(
                                            "SELECT count(DISTINCT day) FROM merchant_daily_totals"))
                    .isEqualTo(2);
            LOG.info("End to end: {} payments, {}", report.started(), comparison);

            Map<String, String> deadLetters = new SinkTables(db).deadLetters();
            assertThat(deadLetters).hasSize(BadRecords.ALL.size());
            for (BadRecords.Bad bad : BadRecords.ALL) {
                assertThat(deadLetters.get(bad.value().replace('\u0000', '\uFFFD')))
                        .as("dead letter of %s", bad.value())
                        .startsWith(bad.reason());
            }
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            assertThat(faults.restores()).as("restores").isZero();
        }
        quietLedgerHeartbeatsCloseTheDaysAndStateEmpties(relays, pipeline, job, cluster, db);
        relays.dropSlot();
    }

    /**
     * Quiet ledger: a relay with heartbeats on moves event time to the wall clock, past the end of
     * the second day + horizon. Every day retires, so the sink's keyed state is empty (with no
     * retention of retired values): a job restored from a savepoint taken then finds no key to SET
     * in its full flush.
     */
    private void quietLedgerHeartbeatsCloseTheDaysAndStateEmpties(
            Relays relays,
            PipelineJob pipeline,
            JobClient job,
            MiniCluster cluster,
            PostgresEndpoint db)
            throws Exception {
        long closed =
                LocalDate.of(2025, 3, 3)
                        .atStartOfDay()
                        .toInstant(ZoneOffset.UTC)
                        .plus(HORIZON)
                        .toEpochMilli();
        JobMetrics metrics = new JobMetrics(METRICS);
        String savepoint;
        try (LedgerRelay heartbeats = relays.start("--heartbeat-interval", "200ms")) {
            await("the watermark floor past the end of the last day + horizon")
                    .atMost(Duration.ofMinutes(5))
                    .until(
                            () -> {
                                List<Long> floors =
                                        metrics.values(job.getJobID(), "watermarkFloor");
                                return floors.size() == 2
                                        && floors.stream().allMatch(f -> f >= closed);
                            });
            savepoint =
                    job.stopWithSavepoint(
                                    false,
                                    dir.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();
        }
        // Without progress or fence rows (neither a commit nor a recorded barrier proves the
        // savepoint's writes) the restore flush is full, so its count of keys set is the number
        // of keys in the sink's restored state.
        new SinkTables(db).execute("DELETE FROM sink_progress; DELETE FROM sink_fences");
        JobClient restored = pipeline.fromSavepoint(savepoint).start("e2e-restored");
        new MiniClusterFaults(cluster, restored.getJobID())
                .awaitAllTasksRunning(Duration.ofMinutes(5));
        List<Long> keysSet = metrics.values(restored.getJobID(), "lastFlushKeysSet");
        assertThat(metrics.values(restored.getJobID(), "lastFlushFull"))
                .as("full flushes")
                .containsOnly(1L);
        List<Long> tags = metrics.values(restored.getJobID(), "currentBarrierTag");
        LOG.info(
                "Restored from {}: keys set by the flush {}, barrier tags {}",
                savepoint,
                keysSet,
                tags);
        assertThat(tags).hasSize(2).allMatch(t -> t > 0); // it did restore
        assertThat(keysSet).as("keys in the sink's restored state").containsOnly(0L);
        restored.cancel().get();
    }
}
