package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.harness;
import static io.effonce.sink.testutils.SinkHarnesses.keyGroupOf;
import static io.effonce.sink.testutils.SinkHarnesses.repartition;
import static io.effonce.sink.testutils.SinkHarnesses.restored;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.subtaskOf;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.testutils.InMemoryTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** Rescale 2 → 3 → 1 from checkpoints: each subtask flushes exactly its own key groups. */
class RescaleFlushTest {

    private static final int KEYS = 60;

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();
    private final FlushableSink<String, Long> sink = sink(table).build();

    @Test
    void eachSubtaskFlushesExactlyItsRangeAndTheUnionIsRight() throws Exception {
        // Parallelism 2: every key = 1 at checkpoint 1; after the barrier an erased run
        // rewrites them as 2 and adds stale keys, then crashes.
        var p2 = open(2);
        upsertAll(p2, "k", 1);
        OperatorSubtaskState c1 = checkpointAll(p2, 1);
        upsertAll(p2, "k", 2);
        upsertAll(p2, "stale-a", 9);
        writeBuffers(p2, 2);
        closeAll(p2);

        // Parallelism 3 from checkpoint 1: open one subtask at a time and look at the table.
        List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>> p3 =
                new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            p3.add(restored(sink, repartition(c1, 2, 3, i), 1, 3, i));
            KeyGroupRange mine = rangeOf(3, i);
            for (int k = 0; k < KEYS; k++) {
                String key = "k" + k;
                String stale = "stale-a" + k;
                boolean flushedAlready = subtaskOf(stale, 3) <= i;
                assertThat(table.values().containsKey(stale)).isEqualTo(!flushedAlready);
                if (mine.contains(keyGroupOf(key))) {
                    assertThat(table.values()).containsEntry(key, 1L);
                }
            }
        }
        assertThat(table.values()).isEqualTo(expected("k", 1));

        upsertAll(p3, "k", 3);
        OperatorSubtaskState c2 = checkpointAll(p3, 2);
        upsertAll(p3, "stale-b", 8);
        writeBuffers(p3, 3);
        closeAll(p3);

        // Parallelism 1 from checkpoint 2.
        try (var p1 = restored(sink, repartition(c2, 3, 1, 0), 2, 1, 0)) {
            assertThat(table.values()).isEqualTo(expected("k", 3));
        }
    }

    private List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>>
            open(int parallelism) throws Exception {
        List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>> hs =
                new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            var h = harness(sink, parallelism, i);
            h.open();
            hs.add(h);
        }
        return hs;
    }

    private static void upsertAll(
            List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>> hs,
            String prefix,
            long value)
            throws Exception {
        for (int k = 0; k < KEYS; k++) {
            String key = prefix + k;
            upsert(hs.get(subtaskOf(key, hs.size())), key, value);
        }
    }

    private static OperatorSubtaskState checkpointAll(
            List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>> hs,
            long id)
            throws Exception {
        OperatorSubtaskState[] states = new OperatorSubtaskState[hs.size()];
        for (int i = 0; i < hs.size(); i++) {
            states[i] = checkpoint(hs.get(i), id);
        }
        return AbstractStreamOperatorTestHarness.repackageState(states);
    }

    private static void writeBuffers(
            List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>> hs,
            long nextBarrier)
            throws Exception {
        for (var h : hs) {
            h.prepareSnapshotPreBarrier(nextBarrier);
        }
    }

    private static void closeAll(
            List<KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>> hs)
            throws Exception {
        for (var h : hs) {
            h.close();
        }
    }

    private static KeyGroupRange rangeOf(int parallelism, int subtask) {
        return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                io.effonce.sink.testutils.SinkHarnesses.MAX_PARALLELISM, parallelism, subtask);
    }

    private static Map<String, Long> expected(String prefix, long value) {
        Map<String, Long> m = new TreeMap<>();
        for (int k = 0; k < KEYS; k++) {
            m.put(prefix + k, value);
        }
        return m;
    }
}
