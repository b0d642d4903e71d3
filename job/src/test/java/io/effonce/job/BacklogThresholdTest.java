package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.job.backlog.BacklogReportingSource;
import io.effonce.sink.FlushableSinkOptions;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SourceTransformation;
import org.junit.jupiter.api.Test;

/**
 * {@code source.backlog-threshold} wraps the Kafka source, by default; at 0 s the source is Kafka's
 * own; a negative one is refused, naming the option.
 */
class BacklogThresholdTest {

    @Test
    void theThresholdWrapsTheSourceAndTheGraphStillBuildsWithoutKryo() {
        StreamExecutionEnvironment env = build("30 s");
        assertThat(sources(env)).singleElement().isInstanceOf(BacklogReportingSource.class);
        assertThat(env.getStreamGraph().getJobGraph().getNumberOfVertices()).isPositive();
    }

    @Test
    void byDefaultTheSourceReportsItsBacklog() {
        assertThat(sources(build(null))).singleElement().isInstanceOf(BacklogReportingSource.class);
    }

    @Test
    void atZeroTheSourceIsKafkasOwn() {
        assertThat(sources(build("0 s"))).singleElement().isInstanceOf(KafkaSource.class);
    }

    @Test
    void aNegativeThresholdIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> build("-1 s"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("Option source.backlog-threshold has a value that cannot be")
                .hasMessageContaining("--help");
    }

    private static StreamExecutionEnvironment build(String threshold) {
        Configuration config = new Configuration();
        config.set(PipelineOptions.GENERIC_TYPES, false);
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        config.set(JobOptions.KAFKA_BOOTSTRAP, "localhost:9");
        config.set(JobOptions.PG_URL, "jdbc:postgresql://localhost:9/ledger");
        // No database to number the deployment: the graph alone is under test.
        config.set(FlushableSinkOptions.REQUIRE_DEPLOYMENT_NUMBER, false);
        if (threshold != null) {
            config.setString(JobOptions.BACKLOG_THRESHOLD.key(), threshold);
        }
        JobConfiguration.validate(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        LedgerPipeline.build(env, config, LedgerTotalsJob.endpoints(config));
        return env;
    }

    private static List<Object> sources(StreamExecutionEnvironment env) {
        return env.getTransformations().stream()
                .flatMap(t -> t.getTransitivePredecessors().stream())
                .filter(SourceTransformation.class::isInstance)
                .map(t -> (Object) ((SourceTransformation<?, ?, ?>) t).getSource())
                .distinct()
                .toList();
    }
}
