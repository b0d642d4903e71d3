package io.effonce.sink.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.testutils.RunningTotals;
import io.effonce.sink.testutils.SourceGate;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestPayment;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.CheckpointCounts;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.PostgresExtension;
import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A keyed pipeline into the flushable sink on a MiniCluster; a task manager is terminated several
 * times mid-run. Each restore flushes, the replay rewrites, and the table ends equal to the totals.
 */
@ExtendWith(PostgresExtension.class)
class FlushableSinkFailoverITCase {

    private static final long PAYMENTS = 12_000;
    private static final int KILLS = 3;

    /** Records the source may emit before each kill. */
    private static final long STRETCH = 2_000;

    /** Upper bound for each wait; a restore costs seconds, more on a busy machine. */
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    @RegisterExtension
    // One slot each: both task managers run a subtask, so every termination hits the job and
    // costs a restore.
    static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    @Test
    void totalsAreExactAfterTaskManagersAreTerminatedMidRun(
            PostgresEndpoint db, @InjectMiniCluster MiniCluster cluster) throws Exception {
        TotalsTable<TestKey> table = new TotalsTable<>(db, TestRows.MAPPING);
        table.truncate();

        // The source emits only what the gate allows, so the job cannot finish before the kills,
        // and each kill lands while an allowed stretch of records is flowing.
        JobClient job =
                pipeline(db, SourceGate.perSecond(2_000, STRETCH))
                        .executeAsync("flushable-sink-failover");
        JobID id = job.getJobID();
        for (int kill = 0; kill < KILLS; kill++) {
            long before = CheckpointCounts.completed(cluster, id);
            long emitted = SourceGate.emitted();
            SourceGate.allow(STRETCH);
            await("records flowing and 2 more completed checkpoints")
                    .atMost(TIMEOUT)
                    .until(
                            () ->
                                    SourceGate.emitted() > emitted
                                            && CheckpointCounts.completed(cluster, id)
                                                    >= before + 2);
            long restoresBefore = CheckpointCounts.restored(cluster, id);
            cluster.terminateTaskManager(kill).get();
            cluster.startTaskManager();
            await("a restore after terminating task manager " + kill)
                    .atMost(TIMEOUT)
                    .until(() -> CheckpointCounts.restored(cluster, id) > restoresBefore);
        }
        SourceGate.open();
        job.getJobExecutionResult().get();

        assertThat(table.totals()).isEqualTo(TestPayment.expectedTotals(PAYMENTS));
        assertThat(CheckpointCounts.restored(cluster, id)).isGreaterThanOrEqualTo(KILLS);
    }

    private static StreamExecutionEnvironment pipeline(PostgresEndpoint db, SourceGate gate) {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 100);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.setMaxParallelism(128);
        env.enableCheckpointing(200);

        DataGeneratorSource<TestPayment> source =
                new DataGeneratorSource<>(
                        TestPayment::of, PAYMENTS, gate, TypeInformation.of(TestPayment.class));
        FlushableSink<TestKey, TestTotal> sink =
                FlushableSink.<TestKey, TestTotal>builder()
                        .store(TestRows.store(db))
                        .valueType(TypeInformation.of(TestTotal.class))
                        .build();

        var changes =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "payments")
                        .uid("payments")
                        .keyBy(TestPayment::key, TypeInformation.of(TestKey.class))
                        .process(new RunningTotals())
                        .uid("running-totals")
                        .returns(new TypeHint<SinkChange<TestKey, TestTotal>>() {});
        sink.writeFrom(changes, TypeInformation.of(TestKey.class), "totals-sink");
        return env;
    }
}
