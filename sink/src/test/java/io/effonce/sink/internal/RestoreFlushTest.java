package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.fresh;
import static io.effonce.sink.testutils.SinkHarnesses.keyGroupOf;
import static io.effonce.sink.testutils.SinkHarnesses.restored;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.testutils.IgnoringDeletes;
import io.effonce.sink.testutils.InMemorySinkStore;
import io.effonce.sink.testutils.InMemoryTable;
import io.effonce.sink.testutils.SinkHarnesses;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * The full flush after a restore, with README's trace of m1 and m2 ("How it works") as the main
 * fixture.
 */
class RestoreFlushTest {

    private static final long C = 5;

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    /**
     * v1 counts m1 = 12,000 by checkpoint c; after barrier c it writes m1 = 15,000 (ev_7) and m2 =
     * 500 (a declined payment v1 wrongly counts), then crashes. Returns the state of c.
     */
    private OperatorSubtaskState runV1UntilCrash() throws Exception {
        try (var v1 = fresh(sink(table).build())) {
            upsert(v1, "m1", 12_000);
            OperatorSubtaskState checkpointC = checkpoint(v1, C);
            upsert(v1, "m1", 15_000);
            upsert(v1, "m2", 500);
            v1.prepareSnapshotPreBarrier(C + 1); // written, but checkpoint c + 1 never completes
            assertThat(table.values()).containsEntry("m1", 15_000L).containsEntry("m2", 500L);
            return checkpointC;
        }
    }

    @Test
    void seedTraceRestoreSetsM1BackAndDeletesM2ThenTheReplayBringsM1To15000() throws Exception {
        OperatorSubtaskState checkpointC = runV1UntilCrash();

        try (var v2 = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(table.values()).containsExactly(Map.entry("m1", 12_000L));
            assertThat(table.row("m1").barrierTag()).isEqualTo(C);

            upsert(v2, "m1", 15_000); // the replay of ev_7; v2 skips the declined payment
            v2.prepareSnapshotPreBarrier(C + 1);
            assertThat(table.values()).containsExactly(Map.entry("m1", 15_000L));
        }
    }

    @Test
    void withoutTheDeleteStepM2Stays500ForeverBranchS() throws Exception {
        OperatorSubtaskState checkpointC = runV1UntilCrash();
        FlushableSink<String, Long> noDelete =
                sink(table).store(IgnoringDeletes.over(InMemorySinkStore.factory(table))).build();

        try (var v2 = restored(noDelete, checkpointC, C, 1, 0)) {
            upsert(v2, "m1", 15_000);
            v2.prepareSnapshotPreBarrier(C + 1);
            assertThat(table.values()).containsEntry("m1", 15_000L).containsEntry("m2", 500L);
        }
    }

    @Test
    void restoreSetsEveryRestoredKeyWithTagCAndDeletesOnlyStaleKeysTaggedCOrLater()
            throws Exception {
        OperatorSubtaskState checkpointC;
        try (var before = fresh(sink(table).build())) {
            upsert(before, "kept", 1);
            upsert(before, "retired-early", 2);
            checkpoint(before, C - 1);
            io.effonce.sink.testutils.SinkHarnesses.retire(before, "retired-early");
            checkpointC = checkpoint(before, C);
            upsert(before, "kept", 10);
            upsert(before, "new-after-c", 3);
            before.prepareSnapshotPreBarrier(C + 1);
        }
        table.plant(new StoredRow<>("old-final-row", 9L, keyGroupOf("old-final-row"), C - 1));

        try (var after = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(table.row("kept"))
                    .isEqualTo(new StoredRow<>("kept", 1L, keyGroupOf("kept"), C));
            assertThat(table.values())
                    .doesNotContainKey("new-after-c")
                    .containsEntry("retired-early", 2L)
                    .containsEntry("old-final-row", 9L);
        }
    }

    @Test
    void aFreshStartOnATableWithRowsIsRefusedAndNamesTheTableAndTheResetOption() throws Exception {
        table.plant(new StoredRow<>("m1", 1L, keyGroupOf("m1"), 3));
        assertThatThrownBy(() -> fresh(sink(table).build()))
                .hasMessageContaining("in_memory_totals")
                .hasMessageContaining("sink.reset-on-fresh-start");
        assertThat(table.values()).containsEntry("m1", 1L);
    }

    @Test
    void aFreshStartWithResetDeletesTheRowsFirst() throws Exception {
        table.plant(new StoredRow<>("m1", 1L, keyGroupOf("m1"), 3));
        try (var h = fresh(sink(table).resetOnFreshStart(true).build())) {
            assertThat(table.values()).isEmpty();
        }
    }

    /**
     * State is written once per changed key before each barrier, not on every upsert: what a
     * checkpoint holds must still be each key's last value, a key retired and set again between two
     * barriers holds its new value, and a key set and then retired holds no live value, only its
     * final one among the retired values.
     */
    @Test
    void aCheckpointHoldsEachKeysLastChangeSinceThePreviousBarrier() throws Exception {
        OperatorSubtaskState checkpointC;
        try (var before = fresh(sink(table).build())) {
            upsert(before, "back", 1);
            upsert(before, "gone", 1);
            checkpoint(before, C - 1);
            for (long v = 2; v <= 40; v++) {
                upsert(before, "hot", v);
            }
            io.effonce.sink.testutils.SinkHarnesses.retire(before, "back");
            upsert(before, "back", 7);
            upsert(before, "gone", 9);
            io.effonce.sink.testutils.SinkHarnesses.retire(before, "gone");
            checkpointC = checkpoint(before, C);
            upsert(before, "hot", 99); // after barrier c: erased by the restore
            before.prepareSnapshotPreBarrier(C + 1);
        }

        try (var after = restored(sink(table).build(), checkpointC, C, 1, 0)) {
            assertThat(table.values())
                    .as("restored state SETs hot and back, and gone from its retained final value")
                    .containsEntry("hot", 40L)
                    .containsEntry("back", 7L)
                    .containsEntry("gone", 9L);
            assertThat(table.row("hot").barrierTag()).isEqualTo(C);
            assertThat(table.row("gone").barrierTag())
                    .as(
                            "c was never committed, but its barrier is on record: the incremental"
                                    + " flush leaves the retired key's row written before it")
                    .isEqualTo(C - 1);
        }
    }

    /**
     * {@code sink.restore-flush} read from configuration: with the range's commit of c on record,
     * AUTO sets only the key written since c, FULL every key of restored state, and both leave the
     * same table.
     */
    @Test
    void theRestoreFlushOptionFullSetsEveryKeyOfStateWhereAutoSetsOnlyTheOneWrittenSinceC()
            throws Exception {
        OperatorSubtaskState checkpointC;
        try (var before = fresh(sink(table).build())) {
            upsert(before, "untouched", 1);
            upsert(before, "m1", 12_000);
            checkpointC = checkpoint(before, C);
            before.notifyOfCompletedCheckpoint(C);
            upsert(before, "m1", 15_000);
            before.prepareSnapshotPreBarrier(C + 1);
        }
        Map<String, Long> restoredTable = Map.of("untouched", 1L, "m1", 12_000L);

        for (String policy : new String[] {"AUTO", "FULL"}) {
            Configuration config = new Configuration();
            config.setString(FlushableSinkOptions.RESTORE_FLUSH.key(), policy);
            try (var after = restored(sink(table).options(config).build(), checkpointC, C, 1, 0)) {
                FlushReport flush = SinkHarnesses.lastFlush(after);
                assertThat(flush.mode())
                        .as(policy)
                        .isEqualTo(
                                policy.equals("AUTO")
                                        ? RestoreFlush.Mode.INCREMENTAL
                                        : RestoreFlush.Mode.FULL);
                assertThat(flush.keysSet()).as(policy).isEqualTo(policy.equals("AUTO") ? 1 : 2);
                assertThat(table.values()).as(policy).isEqualTo(restoredTable);
                upsert(after, "m1", 15_000); // the replay, before the next restore erases it
                after.prepareSnapshotPreBarrier(C + 1);
            }
        }
    }
}
