package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.delete;
import static io.effonce.sink.testutils.SinkHarnesses.fresh;
import static io.effonce.sink.testutils.SinkHarnesses.harness;
import static io.effonce.sink.testutils.SinkHarnesses.lastFlush;
import static io.effonce.sink.testutils.SinkHarnesses.repartition;
import static io.effonce.sink.testutils.SinkHarnesses.restored;
import static io.effonce.sink.testutils.SinkHarnesses.restoredInJob;
import static io.effonce.sink.testutils.SinkHarnesses.retire;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.subtaskOf;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.SinkChange;
import io.effonce.sink.testutils.InMemoryTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * A deleted key after a restore: its rows are as restored state has them. A delete before the
 * restored barrier stays; one the restore erased is undone (the replay decides again), in the live
 * and the committed table, across a rescale too. A deleted row leaves no tag for the incremental
 * flush to find, so the counterfactuals forget the store's record of deletions and show the row
 * missing for good.
 */
class DeletesAcrossRestoresTest {

    private static final long C = 5;

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    /** a = 1 and b = 2 committed at c; after barrier c the erased run deletes a and sets b = 3. */
    private OperatorSubtaskState deleteAfterC(boolean commitTheDelete) throws Exception {
        try (var run = fresh(sink(table).build())) {
            upsert(run, "a", 1);
            upsert(run, "b", 2);
            OperatorSubtaskState checkpointC = checkpoint(run, C);
            run.notifyOfCompletedCheckpoint(C);
            delete(run, "a");
            upsert(run, "b", 3);
            checkpoint(run, C + 1);
            if (commitTheDelete) {
                run.notifyOfCompletedCheckpoint(C + 1);
                assertThat(table.committedValues()).isEqualTo(Map.of("b", 3L));
            }
            assertThat(table.values()).isEqualTo(Map.of("b", 3L));
            return checkpointC;
        }
    }

    @Test
    void aDeleteTheRestoreErasedIsUndoneByAFullFlush() throws Exception {
        OperatorSubtaskState checkpointC = deleteAfterC(false);

        try (var after = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(lastFlush(after).mode()).isEqualTo(RestoreFlush.Mode.FULL);
            assertThat(table.values()).isEqualTo(Map.of("a", 1L, "b", 2L));
            assertThat(table.committedValues()).isEqualTo(Map.of("a", 1L, "b", 2L));
        }
    }

    @Test
    void withoutTheRecordOfDeletionsTheErasedDeleteStaysForGood() throws Exception {
        OperatorSubtaskState checkpointC = deleteAfterC(false);
        table.forgetDeletions();

        try (var after = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(lastFlush(after).mode()).isEqualTo(RestoreFlush.Mode.INCREMENTAL);
            assertThat(table.values()).as("a is missing: wrong").isEqualTo(Map.of("b", 2L));
        }
    }

    @Test
    void aCommittedDeleteIsRolledBackWhenAnOlderCheckpointIsRestored() throws Exception {
        OperatorSubtaskState checkpointC = deleteAfterC(true);

        try (var after = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(table.values()).isEqualTo(Map.of("a", 1L, "b", 2L));
            assertThat(table.committedValues()).isEqualTo(Map.of("a", 1L, "b", 2L));
        }
    }

    @Test
    void withoutTheRecordOfDeletionsTheCommittedDeleteStaysForGood() throws Exception {
        OperatorSubtaskState checkpointC = deleteAfterC(true);
        table.forgetDeletions();

        try (var after = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(table.committedValues())
                    .as("b rolled back, a missing: wrong")
                    .isEqualTo(Map.of("b", 2L));
        }
    }

    @Test
    void aDeleteBeforeTheRestoredBarrierStaysAndTheFlushStaysIncremental() throws Exception {
        OperatorSubtaskState checkpointC;
        try (var run = fresh(sink(table).build())) {
            upsert(run, "a", 1);
            upsert(run, "b", 2);
            checkpoint(run, C - 1);
            run.notifyOfCompletedCheckpoint(C - 1);
            delete(run, "a");
            checkpointC = checkpoint(run, C);
            run.notifyOfCompletedCheckpoint(C);
            assertThat(table.committedValues()).isEqualTo(Map.of("b", 2L));
            upsert(run, "b", 3);
            upsert(run, "a", 7); // set again after barrier c: erased
            checkpoint(run, C + 1);
        }

        try (var after = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(lastFlush(after).mode()).isEqualTo(RestoreFlush.Mode.INCREMENTAL);
            assertThat(table.values()).isEqualTo(Map.of("b", 2L));
            assertThat(table.committedValues()).isEqualTo(Map.of("b", 2L));
        }
    }

    /**
     * A key a flush deletes as stale was in state at an older checkpoint: restoring that one later
     * must bring it back, though its row is gone and left no tag.
     */
    @Test
    void aKeyAFlushDeletedComesBackWhenAnOlderCheckpointIsRestored() throws Exception {
        Configuration noRetention = new Configuration();
        noRetention.set(FlushableSinkOptions.RETIRED_RETENTION, Duration.ZERO);
        FlushableSink<String, Long> sink = sink(table).options(noRetention).build();
        OperatorSubtaskState older;
        OperatorSubtaskState checkpointC;
        try (var run = fresh(sink)) {
            upsert(run, "k", 1);
            older = checkpoint(run, C - 1);
            run.notifyOfCompletedCheckpoint(C - 1);
            delete(run, "k");
            checkpointC = checkpoint(run, C);
            run.notifyOfCompletedCheckpoint(C);
            upsert(run, "k", 5); // after barrier c, erased
            checkpoint(run, C + 1);
        }
        // Restored twice in one job, as a failover right after the first restore does.
        JobID job = new JobID();
        try (var after = restoredInJob(sink, checkpointC, C, job, 0)) {
            assertThat(table.values()).as("k, deleted at c, is stale at c").doesNotContainKey("k");
        }
        try (var again = restoredInJob(sink, checkpointC, C, job, 1)) {
            assertThat(lastFlush(again).mode())
                    .as("restoring c again needs no full flush")
                    .isEqualTo(RestoreFlush.Mode.INCREMENTAL);
        }

        try (var back = restored(sink, older, C - 1, 1, 0)) {
            assertThat(lastFlush(back).mode()).isEqualTo(RestoreFlush.Mode.FULL);
            assertThat(table.values()).isEqualTo(Map.of("k", 1L));
        }
    }

    /**
     * A key retired at checkpoint {@code c} with no final value retained in state, then written
     * again by the erased run after barrier {@code c}: state at {@code c} does not hold it, but its
     * committed value is from {@code c} or before, its final value at {@code c}. The restore sets
     * the live row back to it instead of deleting the key as the erased run's (which lost a day's
     * final rows in the nemesis soak, seed 30756).
     */
    @Test
    void aRetiredKeyTheErasedRunWroteAgainIsSetBackToItsCommittedFinalValue() throws Exception {
        Configuration noRetention = new Configuration();
        noRetention.set(FlushableSinkOptions.RETIRED_RETENTION, Duration.ZERO);
        FlushableSink<String, Long> sink = sink(table).options(noRetention).build();
        OperatorSubtaskState checkpointC;
        try (var run = fresh(sink)) {
            upsert(run, "k", 1);
            checkpoint(run, C - 1);
            run.notifyOfCompletedCheckpoint(C - 1);
            retire(run, "k");
            checkpointC = checkpoint(run, C);
            run.notifyOfCompletedCheckpoint(C);
            upsert(run, "k", 5); // after barrier c, erased
            checkpoint(run, C + 1);
        }
        try (var after = restored(sink, checkpointC, C, 1, 0)) {
            assertThat(table.values()).isEqualTo(Map.of("k", 1L));
            assertThat(table.committedValues()).isEqualTo(Map.of("k", 1L));
        }
    }

    @Test
    void deletesTheRestoreErasedAreUndoneAcrossARescale() throws Exception {
        FlushableSink<String, Long> sink = sink(table).build();
        List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>> p2 =
                new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            var h = harness(sink, 2, i);
            h.open();
            p2.add(h);
        }
        Map<String, Long> atC = new TreeMap<>();
        for (int k = 0; k < 40; k++) {
            String key = "k" + k;
            upsert(p2.get(subtaskOf(key, 2)), key, k);
            atC.put(key, (long) k);
        }
        OperatorSubtaskState[] states = new OperatorSubtaskState[2];
        for (int i = 0; i < 2; i++) {
            states[i] = checkpoint(p2.get(i), C);
            p2.get(i).notifyOfCompletedCheckpoint(C);
        }
        OperatorSubtaskState checkpointC = AbstractStreamOperatorTestHarness.repackageState(states);
        for (int k = 0; k < 40; k += 2) {
            delete(p2.get(subtaskOf("k" + k, 2)), "k" + k);
        }
        for (var h : p2) {
            checkpoint(h, C + 1);
            h.close();
        }
        assertThat(table.values()).hasSize(20);

        try (var p1 = restored(sink, repartition(checkpointC, 2, 1, 0), C, 1, 0)) {
            assertThat(table.values()).isEqualTo(atC);
        }
    }
}
