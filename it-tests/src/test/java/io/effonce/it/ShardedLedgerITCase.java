package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SortedMap;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A ledger in two shards (two databases, each with its own relay, slot and topic), read by one job
 * as one stream ({@code kafka.topic} lists both topics). Shard B bootstraps from its relay's
 * initial snapshot, a history ten days older than the present, while shard A streams the present:
 * B's partitions hold event time still until their history is counted, so nothing of it is late,
 * and the one totals table equals the two ledgers together.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class ShardedLedgerITCase {

    private static final Instant HISTORY = Workloads.START.minus(Duration.ofDays(10));
    private static final int HISTORY_PAYMENTS = 20_000;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private final Path dir = WorkDirs.fresh("sharded-ledger");

    @Test
    void oneJobOverTwoShardsCountsEachOnceWhileOneBootstrapsFromItsSnapshot(
            PostgresEndpoint shardA, KafkaBootstrap kafka) throws Exception {
        Outcome outcome = run(shardA, kafka);
        assertThat(outcome.late()).as("late changes: %s", outcome.lateSummary()).isZero();
        assertThat(outcome.sinkAlone().matches())
                .as("sink alone: %s", outcome.sinkAlone())
                .isTrue();
        assertThat(outcome.days()).isGreaterThanOrEqualTo(3);
        assertThat(outcome.sinkAlone().keys()).isGreaterThan(100);
    }

    private record Outcome(Comparison sinkAlone, long late, String lateSummary, long days) {}

    /**
     * Shard B's history written before its relay starts; A's relay and workload running; B's relay
     * started with an initial snapshot; the job over both topics once B's snapshot is on its topic;
     * then B streams the present too. Returns once sink + late equal both ledgers together: how the
     * sink alone compares, and how many changes were late.
     */
    private Outcome run(PostgresEndpoint shardA, KafkaBootstrap kafka) throws Exception {
        PostgresEndpoint shardB = LocalServices.newDatabase(shardA, "shard_b");
        SchemaTool.applyAll(shardB);
        WorkloadReport history =
                Workloads.runAsync(
                                Workloads.options("shard-b-history", HISTORY_PAYMENTS, 0, HISTORY),
                                shardB)
                        .join();
        assertThat(history.started()).isEqualTo(HISTORY_PAYMENTS);
        Relays relayA = new Relays(shardA, kafka.servers(), "sharda", dir);
        Relays relayB = new Relays(shardB, kafka.servers(), "shardb", dir);
        PipelineJob pipeline =
                PipelineJob.over(
                        shardA,
                        kafka.servers(),
                        relayA.topic() + ";" + relayB.topic(),
                        dir.resolve("checkpoints"));
        try (LedgerRelay streaming = relayA.start();
                RunningWorkload presentA =
                        RunningWorkload.start(Workloads.unbounded("shard-a", 400), shardA);
                LedgerRelay bootstrapping = relayB.start("--snapshot-mode", "initial")) {
            // B's partitions carry its snapshot before the job reads them: they hold, never idle.
            await("shard B's snapshot on its topic")
                    .atMost(TIMEOUT)
                    .until(() -> KafkaTopics.size(kafka.servers(), relayB.topic()) > 0);
            JobClient job = pipeline.start("sharded-ledger");
            presentA.awaitMore(2_000);
            // B streams once its snapshot is done: its first streamed change ends its hold.
            Workloads.runAsync(Workloads.options("shard-b", 2_000, 400), shardB).join();
            presentA.awaitMore(1_000);
            presentA.stopAndDrain();
            SinkTables sink = new SinkTables(shardA);
            await("sink + late equal to both shards' ledgers together")
                    .atMost(TIMEOUT)
                    .until(() -> compare(shardA, shardB, true).matches());
            Outcome outcome =
                    new Outcome(
                            compare(shardA, shardB, false),
                            sink.count("late_events"),
                            sink.lateEventsSummary(),
                            sink.number("SELECT count(DISTINCT day) FROM merchant_daily_totals"));
            job.cancel().get();
            return outcome;
        } finally {
            relayA.dropSlot();
            relayB.dropSlot();
        }
    }

    /**
     * The sum of both shards' ledgers against the sink's totals, with or without the late events
     * (they are recorded in A's database, beside the sink's tables).
     */
    private static Comparison compare(
            PostgresEndpoint shardA, PostgresEndpoint shardB, boolean withLate) {
        LedgerOracle a = new LedgerOracle(shardA);
        SortedMap<MerchantDay, Total> ledgers = LedgerOracle.ledgerTotals(List.of(shardA, shardB));
        return Comparison.of(
                ledgers,
                withLate ? LedgerOracle.sum(a.sinkTotals(), a.lateTotals()) : a.sinkTotals());
    }
}
