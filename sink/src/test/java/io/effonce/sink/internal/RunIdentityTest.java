package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.freshInJob;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.testutils.InMemoryTable;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.junit.jupiter.api.Test;

/**
 * A start without state is a restart of the same run (delete what it wrote) or a new deployment
 * (refuse, or reset): the job id cannot tell them apart, because with HA in application mode every
 * deployment's job id is zero. The run id made when the graph is built can.
 */
class RunIdentityTest {

    private static final JobID APPLICATION_MODE_WITH_HA = new JobID(0, 0);

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    /** Writes m1 = 100 (tag 0) in {@code sink}'s run and stops before any checkpoint. */
    private void runUntilCrashBeforeTheFirstCheckpoint(FlushableSink<String, Long> sink)
            throws Exception {
        try (var h = freshInJob(sink, APPLICATION_MODE_WITH_HA)) {
            upsert(h, "m1", 100);
            h.prepareSnapshotPreBarrier(1); // written; checkpoint 1 never completes
        }
        assertThat(table.values()).containsExactly(Map.entry("m1", 100L));
    }

    @Test
    void aRestartOfTheSameRunBeforeItsFirstCheckpointRemovesWhatItWrote() throws Exception {
        FlushableSink<String, Long> graph = sink(table).build(); // one job graph: one run
        runUntilCrashBeforeTheFirstCheckpoint(graph);

        try (var restarted = freshInJob(graph, APPLICATION_MODE_WITH_HA)) {
            assertThat(table.values())
                    .as("the erased run's row is gone, the replay rewrites it")
                    .isEmpty();
        }
    }

    @Test
    void aNewDeploymentUnderTheSameJobIdIsAFreshStartAndLeavesTheTableAlone() throws Exception {
        runUntilCrashBeforeTheFirstCheckpoint(sink(table).build());
        FlushableSink<String, Long> redeployed = sink(table).build(); // main() ran again

        assertThatThrownBy(() -> freshInJob(redeployed, APPLICATION_MODE_WITH_HA).close())
                .hasMessageContaining("Refusing a fresh start")
                .hasMessageContaining("a new submit of the job that wrote them")
                .hasMessageContaining("is a restore")
                .hasMessageContaining("sink.reset-on-fresh-start");
        assertThat(table.values())
                .as("a job id alone would have read this as a restart and deleted the totals")
                .containsExactly(Map.entry("m1", 100L));
    }

    /**
     * Flink restarts a task that failed in open(): the refusal must hold on every attempt. Had the
     * refused attempt taken the range first, the next attempt would find its own run as the
     * previous owner and "flush from checkpoint 0" — deleting the totals the refusal protects.
     */
    @Test
    void aRefusedFreshStartIsRefusedAgainOnEveryRestartOfItsTask() throws Exception {
        runUntilCrashBeforeTheFirstCheckpoint(sink(table).build());
        FlushableSink<String, Long> redeployed = sink(table).build();

        for (int attempt = 0; attempt < 3; attempt++) {
            assertThatThrownBy(() -> freshInJob(redeployed, APPLICATION_MODE_WITH_HA).close())
                    .as("attempt %d", attempt)
                    .hasMessageContaining("Refusing a fresh start");
        }
        assertThat(table.values()).containsExactly(Map.entry("m1", 100L));
    }
}
