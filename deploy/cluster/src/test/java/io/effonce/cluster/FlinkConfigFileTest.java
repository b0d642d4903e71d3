package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** deploy/flink-conf/config.yaml: Flink reads it as meant, with no unknown or deprecated key. */
class FlinkConfigFileTest {

    @TempDir Path dir;

    @Test
    void everyKeyIsACurrentFlinkOption() throws Exception {
        Set<String> known = FlinkOptionKeys.current();
        Pattern entry = Pattern.compile("^([A-Za-z0-9_.\\-]+):.*$");
        for (String line : FlinkConfigFile.resource("config.yaml").lines().toList()) {
            Matcher m = entry.matcher(line);
            if (m.matches() && !FlinkOptionKeys.isReporterOption(m.group(1))) {
                assertThat(known)
                        .as("known, non-deprecated key %s", m.group(1))
                        .contains(m.group(1));
            }
        }
    }

    @Test
    void flinkReadsTheCheckpointStateAndRestartSettings() {
        FlinkConfigFile.projectDefault().writeTo(dir);
        Configuration conf = GlobalConfiguration.loadConfiguration(dir.toString());

        assertThat(conf.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("rocksdb");
        assertThat(conf.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE))
                .isEqualTo(CheckpointingMode.EXACTLY_ONCE);
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL))
                .isEqualTo(Duration.ofMillis(500));
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL_DURING_BACKLOG))
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(conf.get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS))
                .isEqualTo(Duration.ZERO);
        assertThat(conf.get(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER)).isEqualTo(3);
        assertThat(conf.get(PipelineOptions.GENERIC_TYPES)).as("no Kryo fallback").isFalse();
        assertThat(conf.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION).name())
                .isEqualTo("RETAIN_ON_CANCELLATION");
        assertThat(conf.get(RestartStrategyOptions.RESTART_STRATEGY))
                .isEqualTo("exponential-delay");
        assertThat(conf.get(org.apache.flink.configuration.TaskManagerOptions.TOTAL_PROCESS_MEMORY))
                .isEqualTo(MemorySize.parse("2048m"));
        assertThat(conf.get(org.apache.flink.configuration.CoreOptions.FLINK_JVM_OPTIONS))
                .contains("--add-opens=java.base/java.util=ALL-UNNAMED");
    }

    @Test
    void overridesReplaceTheLineAndNewKeysAreAppended() {
        FlinkConfigFile file =
                FlinkConfigFile.projectDefault()
                        .set("rest.port", "12345")
                        .set("heartbeat.timeout", "5s")
                        .set("execution.checkpointing.dir", "file:///tmp/x y/checkpoints")
                        .set("taskmanager.resource-id", "tm-0");
        file.writeTo(dir);
        Configuration conf = GlobalConfiguration.loadConfiguration(dir.toString());

        assertThat(file.get("rest.port")).contains("12345");
        assertThat(file.text().lines().filter(l -> l.startsWith("rest.port:"))).hasSize(1);
        assertThat(conf.get(org.apache.flink.configuration.RestOptions.PORT)).isEqualTo(12345);
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .isEqualTo("file:///tmp/x y/checkpoints");
        assertThat(conf.getString("taskmanager.resource-id", null)).isEqualTo("tm-0");
    }
}
