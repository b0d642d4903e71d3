package io.effonce.sink.explore;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.explore.Step.Barrier;
import io.effonce.sink.explore.Step.Complete;
import io.effonce.sink.explore.Step.Fail;
import io.effonce.sink.explore.Step.Open;
import io.effonce.sink.explore.Step.Upsert;
import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The incremental flush's argument with one case dropped: rows tagged exactly with the restored
 * checkpoint {@code c} (what an attempt restored from {@code c} writes before its next barrier, and
 * what an interrupted flush wrote). With the tag index read from {@code c + 1}, a second restore
 * from {@code c} misses them and the erased attempt's totals stay.
 */
class IncrementalFlushCounterfactualTest {

    /**
     * Checkpoint 1 completes with k0 = 100; the job restarts from it; the restored attempt writes
     * k0 = 150 and k1 = 30 (tag 1, the restored checkpoint) and fails before its next barrier; the
     * next attempt restores checkpoint 1 again.
     */
    private static final List<Step> WRITTEN_WITH_THE_RESTORED_TAG =
            List.of(
                    new Open(0),
                    new Upsert(0, 100),
                    new Barrier(),
                    new Complete(true),
                    new Fail(0, false),
                    new Open(0),
                    new Upsert(0, 50),
                    new Upsert(1, 30),
                    new Fail(0, false));

    @Test
    void aFlushThatMissesTheRestoredCheckpointsTagLeavesTheErasedAttemptsTotals() {
        InMemoryStoreUnderTest missing = new InMemoryStoreUnderTest();
        missing.table().missRowsTaggedWithTheRestoredCheckpoint();
        assertThat(
                        new TakeoverExplorer<>(missing, false, false)
                                .play(1, WRITTEN_WITH_THE_RESTORED_TAG))
                .startsWith("live table")
                .contains("k0=150");
        assertThat(
                        new TakeoverExplorer<>(new InMemoryStoreUnderTest(), false, false)
                                .play(1, WRITTEN_WITH_THE_RESTORED_TAG))
                .isNull();
    }
}
