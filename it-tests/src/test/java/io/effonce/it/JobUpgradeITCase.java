package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.StoreFaults;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.job.DailyTotal;
import io.effonce.job.JobOptions;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.MerchantDayRows;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job upgrade that changes what counts: v1 counts FAILED as well as SUCCEEDED, v2 (restored from
 * a savepoint v1 took before the workload) only SUCCEEDED. Keys only v1 produced (a merchant-day
 * with failures and no success) were written after the savepoint and are not in the restored state,
 * so step 3 of the full flush deletes them. The counterfactual ignores that step and shows them
 * left behind.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class JobUpgradeITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    /** Runs v1, then v2 from v1's savepoint; returns the keys only v1 produced. */
    private static Set<MerchantDay> upgradeFromV1ToV2(
            PostgresEndpoint db,
            KafkaBootstrap kafka,
            MiniCluster cluster,
            String name,
            Function<PostgresStoreConfig, SinkStoreFactory<MerchantDayKey, DailyTotal>> store)
            throws Exception {
        Path dir = WorkDirs.fresh(name);
        Relays relays = new Relays(db, kafka.servers(), name, dir);
        SinkTables tables = new SinkTables(db);
        try (LedgerRelay relay = relays.start()) {
            PipelineJob v1 =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .set(JobOptions.COUNTED_STATES, List.of("SUCCEEDED", "FAILED"))
                            .totals(store);
            JobClient v1Job = v1.start(name + "-v1");
            new MiniClusterFaults(cluster, v1Job.getJobID())
                    .awaitAllTasksRunning(Duration.ofMinutes(5));
            String savepoint =
                    v1Job.triggerSavepoint(
                                    dir.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();

            // Many small merchants, so some merchant-days have failures and no success.
            Workloads.runAsync(Workloads.options(name, 6_000, 0).merchants(1_500), db).get();
            Set<MerchantDay> onlyV1 = keysWithFailuresOnly(tables);
            assertThat(onlyV1).as("merchant-days with failures and no success").isNotEmpty();
            Map<MerchantDay, Long> v1Expected = v1Totals(tables);
            LedgerOracle oracle = new LedgerOracle(db);
            await("v1 counted SUCCEEDED and FAILED")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> totalsOf(oracle).equals(v1Expected));
            v1Job.cancel().get();

            JobClient v2Job =
                    PipelineJob.over(
                                    db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                            .totals(store)
                            .fromSavepoint(savepoint)
                            .start(name + "-v2");
            new MiniClusterFaults(cluster, v2Job.getJobID())
                    .awaitAllTasksRunning(Duration.ofMinutes(5));
            return onlyV1;
        } finally {
            relays.dropSlot();
        }
    }

    private static Map<MerchantDay, Long> totalsOf(LedgerOracle oracle) {
        Map<MerchantDay, Long> totals = new HashMap<>();
        oracle.sinkTotals().forEach((k, v) -> totals.put(k, v.totalMinor()));
        return totals;
    }

    private static Map<MerchantDay, Long> v1Totals(SinkTables tables) {
        Map<MerchantDay, Long> totals = new HashMap<>();
        tables.query(
                "SELECT merchant_id, (updated_at AT TIME ZONE 'UTC')::date, currency, sum(amount)"
                        + " FROM payments WHERE state IN ('SUCCEEDED', 'FAILED') GROUP BY 1, 2, 3",
                rs -> totals.put(MerchantDay.fromColumns(rs), rs.getLong(4)));
        return totals;
    }

    private static Set<MerchantDay> keysWithFailuresOnly(SinkTables tables) {
        Set<MerchantDay> keys = new TreeSet<>();
        tables.query(
                "SELECT merchant_id, (updated_at AT TIME ZONE 'UTC')::date, currency FROM payments"
                        + " WHERE state IN ('SUCCEEDED', 'FAILED') GROUP BY 1, 2, 3"
                        + " HAVING bool_and(state = 'FAILED')",
                rs -> keys.add(MerchantDay.fromColumns(rs)));
        return keys;
    }

    @Nested
    class WithTheDeleteStep {

        @Test
        void keysOnlyV1ProducedAreDeletedByTheFlushAfterTheUpgrade(
                PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
                throws Exception {
            Set<MerchantDay> onlyV1 =
                    upgradeFromV1ToV2(
                            db,
                            kafka,
                            cluster,
                            "upgrade",
                            c -> PostgresStores.deployed(c, MerchantDayRows.MAPPING));
            TotalsInvariant.awaitHolds(db, Duration.ofMinutes(5));
            assertThat(new LedgerOracle(db).sinkTotals().keySet())
                    .doesNotContainAnyElementsOf(onlyV1);
        }
    }

    @Nested
    class WithoutTheDeleteStep {

        @Test
        void keysOnlyV1ProducedStayWhenTheFlushDoesNotDelete(
                PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
                throws Exception {
            Set<MerchantDay> onlyV1 =
                    upgradeFromV1ToV2(
                            db, kafka, cluster, "upgradenodelete", StoreFaults::withoutDeletes);
            LedgerOracle oracle = new LedgerOracle(db);
            await("every key right except the stale ones")
                    .atMost(Duration.ofMinutes(5))
                    .until(
                            () -> {
                                Comparison c = oracle.compareWithSinkAndLate();
                                return c.differences().stream()
                                        .allMatch(d -> d.kind() == Comparison.Kind.EXTRA);
                            });
            Comparison comparison = oracle.compareWithSinkAndLate();
            assertThat(comparison.of(Comparison.Kind.EXTRA))
                    .extracting(Comparison.Difference::key)
                    .containsExactlyInAnyOrderElementsOf(onlyV1);
        }
    }
}
