package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.fresh;
import static io.effonce.sink.testutils.SinkHarnesses.retire;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.testutils.InMemoryTable;
import org.junit.jupiter.api.Test;

/** Tags follow barriers, and the buffer coalesces and empties before each barrier. */
class BarrierTagTest {

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    @Test
    void writesBeforeBarrierNCarryTheTagBeforeItAndWritesAfterItCarryN() throws Exception {
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 100);
            checkpoint(h, 1);
            assertThat(table.row("m1").barrierTag()).isZero();

            upsert(h, "m1", 200);
            upsert(h, "m2", 50);
            checkpoint(h, 2);
            assertThat(table.row("m1")).isEqualTo(row("m1", 200L, 1));
            assertThat(table.row("m2").barrierTag()).isEqualTo(1);

            upsert(h, "m2", 70);
            h.prepareSnapshotPreBarrier(3);
            assertThat(table.row("m2")).isEqualTo(row("m2", 70L, 2));
        }
    }

    @Test
    void bufferCoalescesUpsertsOfOneKeyAndIsEmptyAfterPrepareSnapshotPreBarrier() throws Exception {
        try (var h = fresh(sink(table).build())) {
            for (long v = 1; v <= 50; v++) {
                upsert(h, "hot", v);
            }
            upsert(h, "cold", 7);
            assertThat(table.writeLog()).isEmpty();

            h.prepareSnapshotPreBarrier(1);
            assertThat(table.writeLog())
                    .extracting(StoredRow::key, StoredRow::value)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("hot", 50L),
                            org.assertj.core.groups.Tuple.tuple("cold", 7L));

            table.clearWriteLog();
            h.prepareSnapshotPreBarrier(2);
            assertThat(table.writeLog()).as("nothing left in the buffer").isEmpty();
        }
    }

    @Test
    void aFullBufferIsWrittenWithoutWaitingForABarrier() throws Exception {
        try (var h = fresh(sink(table).batchSize(3).build())) {
            upsert(h, "a", 1);
            upsert(h, "b", 1);
            assertThat(table.writeLog()).isEmpty();
            upsert(h, "c", 1);
            assertThat(table.writeLog()).hasSize(3);
        }
    }

    @Test
    void theFlushTimerWritesTheBufferAfterTheInterval() throws Exception {
        try (var h = fresh(sink(table).build())) {
            h.setProcessingTime(0);
            upsert(h, "m1", 5);
            h.setProcessingTime(199);
            assertThat(table.writeLog()).isEmpty();
            h.setProcessingTime(200);
            assertThat(table.values()).containsEntry("m1", 5L);
            upsert(h, "m1", 6);
            h.setProcessingTime(400);
            assertThat(table.values()).containsEntry("m1", 6L);
        }
    }

    @Test
    void retireDropsTheKeyFromStateAndLeavesItsRowAsTheFinalValue() throws Exception {
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 900);
            retire(h, "m1");
            assertThat(h.numKeyedStateEntries()).isZero();
            h.prepareSnapshotPreBarrier(1);
            assertThat(table.values()).containsEntry("m1", 900L);
        }
    }

    @Test
    void aBarrierThatDoesNotGrowTheTagFailsTheCheckpoint() throws Exception {
        try (var h = fresh(sink(table).build())) {
            checkpoint(h, 5);
            assertThatThrownBy(() -> checkpoint(h, 4))
                    .hasStackTraceContaining("tags must only grow");
        }
    }

    private static StoredRow<String, Long> row(String key, Long value, long tag) {
        return new StoredRow<>(
                key, value, io.effonce.sink.testutils.SinkHarnesses.keyGroupOf(key), tag);
    }
}
