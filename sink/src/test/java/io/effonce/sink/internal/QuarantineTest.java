package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.delete;
import static io.effonce.sink.testutils.SinkHarnesses.fresh;
import static io.effonce.sink.testutils.SinkHarnesses.restored;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.jdbc.RefusedRowsException;
import io.effonce.sink.FlushableSink;
import io.effonce.sink.RestoreFlushPolicy;
import io.effonce.sink.testutils.Claims;
import io.effonce.sink.testutils.InMemorySinkStore;
import io.effonce.sink.testutils.InMemoryTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * A row the database refuses for what it contains is quarantined, and every other key keeps moving:
 * on the live path and in the full flush after a restore.
 */
class QuarantineTest {

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    @Test
    void aRefusedKeyIsQuarantinedAndTheRestOfItsBatchIsWritten() throws Exception {
        table.refuse(key -> key.startsWith("poison"));
        try (var h = fresh(sink(table).build())) {
            for (int i = 0; i < 100; i++) {
                upsert(h, "m" + i, i);
            }
            upsert(h, "poison-1", 7);
            upsert(h, "poison-2", 8);
            h.prepareSnapshotPreBarrier(1);

            assertThat(table.values()).hasSize(100).doesNotContainKeys("poison-1", "poison-2");
            assertThat(table.quarantined())
                    .containsOnlyKeys("poison-1", "poison-2")
                    .allSatisfy((k, reason) -> assertThat(reason).startsWith("SQLSTATE 54000"));

            // The next batch is clean again: one statement.
            long before = table.writeStatements();
            upsert(h, "m1", 1_000);
            h.prepareSnapshotPreBarrier(2);
            assertThat(table.writeStatements()).isEqualTo(before + 1);
            assertThat(table.values()).containsEntry("m1", 1_000L);
        }
    }

    @Test
    void theDeleteOfARefusedKeyIsQuarantinedAndTheOtherDeletesOfItsBatchLand() throws Exception {
        table.refuse(key -> key.equals("poison"));
        OperatorSubtaskState state;
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 100);
            upsert(h, "m2", 200);
            upsert(h, "poison", 5);
            state = checkpoint(h, 1);
        }
        assertThat(table.quarantined()).containsOnlyKeys("poison");

        // Every replay of the retraction reaches the same refused delete: it must not fail them.
        for (int replay = 0; replay < 2; replay++) {
            try (var h = restored(sink(table).build(), state, 1, 1, 0)) {
                delete(h, "m1");
                delete(h, "poison");
                upsert(h, "m3", 300);
                h.prepareSnapshotPreBarrier(2);
                assertThat(table.values()).containsOnlyKeys("m2", "m3").containsEntry("m2", 200L);
            }
        }
        assertThat(table.quarantined()).containsOnlyKeys("poison");
    }

    @Test
    void theFullFlushDeletesARefusedKeysTombstoneThroughTheQuarantine() throws Exception {
        table.refuse(key -> key.equals("poison"));
        FlushableSink<String, Long> sink =
                sink(table).restoreFlush(RestoreFlushPolicy.FULL).build();
        OperatorSubtaskState state;
        try (var h = fresh(sink)) {
            upsert(h, "m1", 100);
            upsert(h, "poison", 5);
            checkpoint(h, 1);
            delete(h, "poison"); // a tombstone in state for the retention
            upsert(h, "m2", 200);
            state = checkpoint(h, 2);
        }
        // Every full flush within the retention deletes the tombstoned key again: refused, it
        // would fail every restore.
        try (var h =
                restored(
                        sink(table).restoreFlush(RestoreFlushPolicy.FULL).build(),
                        state,
                        2,
                        1,
                        0)) {
            assertThat(table.values()).containsOnlyKeys("m1", "m2");
        }
        assertThat(table.quarantined()).containsOnlyKeys("poison");
    }

    @Test
    void withoutQuarantineTheRefusedDeleteWouldFailItsWholeBatch() {
        SinkStore<String, Long> store = new InMemorySinkStore<>(table);
        Claims.take(store, new KeyGroupSpan(0, 127), "job", "task");
        store.write(rows("a", 3));
        table.refuse(key -> key.equals("a1"));
        // The counterfactual: the store alone refuses the batch, so a0's delete never lands.
        assertThatThrownBy(() -> store.delete(tombstones("a", 3)))
                .isInstanceOf(RefusedRowsException.class);
        assertThat(table.values()).containsOnlyKeys("a0", "a1", "a2");

        QuarantiningWriter<String, Long> writer =
                new QuarantiningWriter<>(store, store, store.tableName(), new SimpleCounter());
        assertThat(writer.delete(tombstones("a", 3))).isEqualTo(1);
        assertThat(table.values()).containsOnlyKeys("a1");
        assertThat(table.quarantined()).containsOnlyKeys("a1");
    }

    @Test
    void aCleanBatchCostsOneStatementAndFindingTwoBadRowsCostsFewMore() {
        SinkStore<String, Long> store = new InMemorySinkStore<>(table);
        Claims.take(store, new KeyGroupSpan(0, 127), "job", "task");
        SimpleCounter quarantined = new SimpleCounter();
        QuarantiningWriter<String, Long> writer =
                new QuarantiningWriter<>(store, store, store.tableName(), quarantined);

        assertThat(writer.write(rows("a", 1_024))).isZero();
        assertThat(table.writeStatements()).isEqualTo(1);

        table.refuse(key -> key.equals("b17") || key.equals("b900"));
        assertThat(writer.write(rows("b", 1_024))).isEqualTo(2);
        assertThat(quarantined.getCount()).isEqualTo(2);
        assertThat(table.quarantined()).containsOnlyKeys("b17", "b900");
        assertThat(table.values()).hasSize(1_024 + 1_024 - 2).doesNotContainKeys("b17", "b900");
        // bisection: at most 2 * (2 * log2(1024)) + 1 statements for two bad rows
        assertThat(table.writeStatements() - 1).isLessThanOrEqualTo(41);
    }

    @Test
    void withoutQuarantineOneRefusedRowWouldFailEveryBatchItIsIn() {
        SinkStore<String, Long> store = new InMemorySinkStore<>(table);
        Claims.take(store, new KeyGroupSpan(0, 127), "job", "task");
        table.refuse(key -> key.equals("a3"));
        // The counterfactual: the store alone refuses the whole batch, so no key would move.
        assertThatThrownBy(() -> store.write(rows("a", 10)))
                .isInstanceOf(RefusedRowsException.class);
        assertThat(table.values()).isEmpty();
    }

    @Test
    void theFullFlushAfterARestoreQuarantinesARefusedKeyInsteadOfFailingEveryRestore()
            throws Exception {
        OperatorSubtaskState state;
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 100);
            upsert(h, "poison", 5);
            state = checkpoint(h, 3);
        }
        table.refuse(key -> key.equals("poison"));
        // Full by choice: since the barrier's record proves a checkpoint never committed, the
        // flush after such a restore is incremental and would not touch the poison key.
        try (var h =
                restored(
                        sink(table).restoreFlush(RestoreFlushPolicy.FULL).build(),
                        state,
                        3,
                        1,
                        0)) {
            upsert(h, "m2", 200);
            h.prepareSnapshotPreBarrier(4);
            assertThat(table.values()).containsEntry("m1", 100L).containsEntry("m2", 200L);
            assertThat(table.quarantined()).containsOnlyKeys("poison");
        }
    }

    private static List<StoredRow<String, Long>> tombstones(String prefix, int n) {
        return rows(prefix, n).stream()
                .map(r -> StoredRow.<String, Long>tombstone(r.key(), r.keyGroup(), 1))
                .toList();
    }

    private static List<StoredRow<String, Long>> rows(String prefix, int n) {
        List<StoredRow<String, Long>> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new StoredRow<>(prefix + i, (long) i, 0, 1));
        }
        return rows;
    }
}
