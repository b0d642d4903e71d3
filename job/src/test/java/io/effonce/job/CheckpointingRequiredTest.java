package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSinkOptions;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/** The job refuses to start without exactly-once checkpoints, naming the option to set. */
class CheckpointingRequiredTest {

    private static void build(Configuration cluster) {
        Configuration job = new Configuration();
        job.set(JobOptions.KAFKA_BOOTSTRAP, "localhost:9");
        job.set(JobOptions.PG_URL, "jdbc:postgresql://localhost:9/ledger");
        job.set(FlushableSinkOptions.REQUIRE_DEPLOYMENT_NUMBER, false);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(cluster);
        LedgerPipeline.build(env, job, LedgerTotalsJob.endpoints(job));
    }

    @Test
    void withoutCheckpointsTheJobIsRefused() {
        assertThatThrownBy(() -> build(new Configuration()))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("set execution.checkpointing.interval");
    }

    @Test
    void atLeastOnceCheckpointsAreRefused() {
        Configuration cluster = new Configuration();
        cluster.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
        cluster.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.AT_LEAST_ONCE);
        assertThatThrownBy(() -> build(cluster))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("execution.checkpointing.mode is AT_LEAST_ONCE")
                .hasMessageContaining("Set execution.checkpointing.mode: EXACTLY_ONCE");
    }

    @Test
    void exactlyOnceCheckpointsAsInTheShippedConfigBuild() {
        Configuration cluster = new Configuration();
        cluster.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
        assertThatCode(() -> build(cluster)).doesNotThrowAnyException();
    }
}
