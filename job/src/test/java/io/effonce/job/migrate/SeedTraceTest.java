package io.effonce.job.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * README's trace of m1 ("How it works"; dedup/README.md, rule 5): checkpoint c1 is taken after m1
 * reached 12,000 and before ev_7 (pay_7:SUCCEEDED, 3,000 to m1) was counted. ev_7 is counted
 * (15,000), the job crashes, it restores from c1 and replays ev_7 from c1's input position. Dedup
 * state in Flink restores with the totals, so ev_7 is counted exactly once: 12,000 → 15,000. A
 * seen-ID cache outside Flink survives the restore, drops the replay and leaves m1 at 12,000.
 */
class SeedTraceTest {

    private static final long T = 1_000_000L;

    /** The input log (the Kafka topic); c1's input position is 2. */
    private static final List<Change> LOG =
            List.of(
                    new Change("pay_1:SUCCEEDED", "m1", 5_000),
                    new Change("pay_3:SUCCEEDED", "m1", 7_000),
                    new Change("pay_7:SUCCEEDED", "m1", 3_000));

    private static final int C1_POSITION = 2;

    /** The counterfactual's cache: a static outlives every harness, like Redis outlives a job. */
    private static final Set<String> SEEN_OUTSIDE_FLINK = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void clearOutsideCache() {
        SEEN_OUTSIDE_FLINK.clear();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"heap", "rocksdb"})
    void replayedEv7IsCountedExactlyOnceBecauseSeenIdsRestoreWithTheTotals(String backend)
            throws Exception {
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        long m1 =
                runTraceAndReturnM1(
                        () -> dedup.createOperator(DedupHarnesses.CHANGE_TYPE),
                        "rocksdb".equals(backend) ? new EmbeddedRocksDBStateBackend() : null);
        assertThat(m1).isEqualTo(15_000);
    }

    /** Counterfactual: an outside cache under-bills m1 by 3,000 after the restore. */
    @Test
    void outsideCacheDropsTheReplayedEv7AndM1StaysAt12000() throws Exception {
        long m1 =
                runTraceAndReturnM1(
                        () -> new KeyedProcessOperator<>(new OutsideCacheDedup()), null);
        assertThat(m1).isEqualTo(12_000);
    }

    private static long runTraceAndReturnM1(
            Supplier<OneInputStreamOperator<Change, Change>> dedup, @Nullable StateBackend backend)
            throws Exception {
        Map<String, Long> totals = new HashMap<>(); // DailyTotals, downstream of dedup
        OperatorSubtaskState c1;
        Map<String, Long> totalsAtC1;
        try (var run1 = harness(dedup.get(), backend, null)) {
            for (int i = 0; i < C1_POSITION; i++) {
                run1.processElement(LOG.get(i), T + i);
            }
            sumInto(totals, run1);
            assertThat(totals).containsEntry("m1", 12_000L);

            c1 = run1.snapshot(1L, 1L);
            totalsAtC1 = new HashMap<>(totals);

            run1.getOutput().clear();
            run1.processElement(LOG.get(2), T + 2); // ev_7 is counted...
            sumInto(totals, run1);
            assertThat(totals).containsEntry("m1", 15_000L);
        } // ...and the task manager dies before the next checkpoint.

        totals = totalsAtC1; // every operator restores from c1
        try (var run2 = harness(dedup.get(), backend, c1)) {
            for (int i = C1_POSITION; i < LOG.size(); i++) {
                run2.processElement(LOG.get(i), T + i); // replay from c1's input position
            }
            run2.processElement(LOG.get(2), T + 2); // and the relay delivers ev_7 once more
            sumInto(totals, run2);
        }
        return totals.getOrDefault("m1", 0L);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Change, Change> harness(
            OneInputStreamOperator<Change, Change> operator,
            @Nullable StateBackend backend,
            @Nullable OperatorSubtaskState restoreFrom)
            throws Exception {
        var harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        operator, Change::eventId, Types.STRING);
        if (backend != null) {
            harness.setStateBackend(backend);
        }
        harness.setup();
        if (restoreFrom == null) {
            harness.initializeEmptyState();
        } else {
            harness.initializeState(restoreFrom);
        }
        harness.open();
        return harness;
    }

    @SuppressWarnings("unchecked")
    private static void sumInto(
            Map<String, Long> totals,
            KeyedOneInputStreamOperatorTestHarness<String, Change, Change> harness) {
        for (Object out : harness.getOutput()) {
            if (out instanceof StreamRecord<?> record) {
                Change change = ((StreamRecord<Change>) record).getValue();
                totals.merge(change.merchant(), change.amount(), Long::sum);
            }
        }
        harness.getOutput().clear();
    }

    /** The wrong design: seen-IDs in a store that does not restore with Flink's state. */
    private static final class OutsideCacheDedup
            extends KeyedProcessFunction<String, Change, Change> {
        @Override
        public void processElement(Change change, Context ctx, Collector<Change> out) {
            if (SEEN_OUTSIDE_FLINK.add(change.eventId())) {
                out.collect(change);
            }
        }
    }
}
