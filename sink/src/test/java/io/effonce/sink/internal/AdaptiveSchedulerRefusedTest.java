package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.MAX_PARALLELISM;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.testutils.InMemoryTable;
import io.effonce.sink.testutils.SinkHarnesses;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.SchedulerExecutionMode;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.util.TestingTaskManagerRuntimeInfo;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The adaptive scheduler rescales within a run, where the fence cannot order a paused attempt of
 * one parallelism against the attempts of another (the exploration found a phantom total that way):
 * the sink refuses to start under it, naming the option and the way out, before it touches the
 * table.
 */
class AdaptiveSchedulerRefusedTest {

    private static final TypeInformation<String> KEY = TypeInformation.of(String.class);

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    @Test
    void theAdaptiveSchedulerIsRefusedBeforeTheTableIsTouched() throws Exception {
        Configuration cluster = new Configuration();
        cluster.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Adaptive);

        assertThatThrownBy(() -> openUnder(cluster))
                .hasMessageContaining("jobmanager.scheduler: adaptive")
                .hasMessageContaining("rescale through a savepoint");
        assertThat(table.dump()).doesNotContain("fence {0=");
    }

    @Test
    void reactiveModeIsRefused() {
        Configuration cluster = new Configuration();
        cluster.set(JobManagerOptions.SCHEDULER_MODE, SchedulerExecutionMode.REACTIVE);

        assertThatThrownBy(() -> openUnder(cluster)).hasMessageContaining("reactive");
    }

    /**
     * Set on the JobManager alone, the adaptive scheduler is out of a task's sight until it
     * rescales the run: the first attempt at the new parallelism is refused there, before it
     * touches the table.
     */
    @Test
    void aRescaleWithinTheRunIsRefusedWhereverTheSchedulerWasSet() throws Exception {
        FlushableSink<String, Long> run = sink(table).build();
        JobID job = new JobID();
        for (int subtask = 0; subtask < 2; subtask++) {
            try (var h = SinkHarnesses.attempt(run, KEY, job, 2, subtask, 0)) {
                h.initializeEmptyState();
                h.open();
            }
        }
        String before = table.dump();
        try (var rescaled = SinkHarnesses.attempt(run, KEY, job, 1, 0, 1)) {
            rescaled.initializeEmptyState();
            assertThatThrownBy(rescaled::open)
                    .hasMessageContaining("rescaled within its run")
                    .hasMessageContaining("jobmanager.scheduler: default")
                    .hasMessageContaining("rescale through a savepoint");
        }
        assertThat(table.dump()).isEqualTo(before);
    }

    @Test
    void theDefaultSchedulerStarts() throws Exception {
        openUnder(new Configuration());
        assertThat(table.dump()).contains("fence {0=");
    }

    private void openUnder(Configuration cluster) throws Exception {
        var environment =
                new MockEnvironmentBuilder()
                        .setMaxParallelism(MAX_PARALLELISM)
                        .setTaskManagerRuntimeInfo(new TestingTaskManagerRuntimeInfo(cluster))
                        .build();
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>(
                        sink(table).build().createOperator(),
                        SinkChange::key,
                        TypeInformation.of(String.class),
                        environment)) {
            h.open();
        }
    }
}
