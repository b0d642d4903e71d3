package io.effonce.job.migrate;

import io.effonce.dedup.LateCopy;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** Opens dedup operators in Flink's keyed operator test harness, fresh or from a snapshot. */
final class DedupHarnesses {

    static final int MAX_PARALLELISM = 128;
    static final TypeInformation<Change> CHANGE_TYPE = TypeInformation.of(Change.class);

    private DedupHarnesses() {}

    static KeyedOneInputStreamOperatorTestHarness<String, Change, Change> open(
            EventTimeDedup<Change> dedup) throws Exception {
        return open(dedup, null, null, 1, 0);
    }

    static KeyedOneInputStreamOperatorTestHarness<String, Change, Change> open(
            EventTimeDedup<Change> dedup, @Nullable OperatorSubtaskState restoreFrom)
            throws Exception {
        return open(dedup, restoreFrom, null, 1, 0);
    }

    /**
     * A harness for subtask {@code subtask} of {@code parallelism}, on {@code backend} (heap if
     * null), restored from {@code restoreFrom} if given (already repartitioned for that subtask).
     */
    static KeyedOneInputStreamOperatorTestHarness<String, Change, Change> open(
            EventTimeDedup<Change> dedup,
            @Nullable OperatorSubtaskState restoreFrom,
            @Nullable StateBackend backend,
            int parallelism,
            int subtask)
            throws Exception {
        KeyedOneInputStreamOperatorTestHarness<String, Change, Change> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        dedup.<String>createOperator(CHANGE_TYPE),
                        Change::eventId,
                        Types.STRING,
                        MAX_PARALLELISM,
                        parallelism,
                        subtask);
        if (backend != null) {
            harness.setStateBackend(backend);
        }
        harness.setup();
        if (restoreFrom != null) {
            harness.initializeState(restoreFrom);
        } else {
            harness.initializeEmptyState();
        }
        harness.open();
        return harness;
    }

    @SuppressWarnings("unchecked")
    static EventTimeDedupOperator<String, Change> operator(
            KeyedOneInputStreamOperatorTestHarness<String, Change, Change> harness) {
        return (EventTimeDedupOperator<String, Change>) harness.getOperator();
    }

    /** Records the operator passed downstream, in order. */
    @SuppressWarnings("unchecked")
    static List<Change> passed(KeyedOneInputStreamOperatorTestHarness<String, Change, Change> h) {
        return h.getOutput().stream()
                .filter(StreamRecord.class::isInstance)
                .map(o -> ((StreamRecord<Change>) o).getValue())
                .toList();
    }

    static List<LateCopy<Change>> late(
            KeyedOneInputStreamOperatorTestHarness<String, Change, Change> harness) {
        return harness.getSideOutput(LateCopy.tag(CHANGE_TYPE)) == null
                ? List.of()
                : harness.getSideOutput(LateCopy.tag(CHANGE_TYPE)).stream()
                        .map(StreamRecord::getValue)
                        .toList();
    }

    /** Remembered IDs, counted through the keyed state backend (works on heap and RocksDB). */
    static long rememberedIds(KeyedOneInputStreamOperatorTestHarness<String, Change, Change> h) {
        try (var keys =
                Objects.requireNonNull(h.getOperator().getKeyedStateBackend())
                        .getKeys(EventTimeDedupOperator.SEEN_STATE_NAME, VoidNamespace.INSTANCE)) {
            return keys.count();
        }
    }
}
