package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.MAX_PARALLELISM;
import static io.effonce.sink.testutils.SinkHarnesses.attempt;
import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.testutils.SinkHarnesses;
import io.effonce.sink.testutils.StoreUnderTest;
import io.effonce.sink.testutils.StoreUnderTest.DatabaseCopy;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * What the start protocol's contracts share: the store under test, and histories' steps (an attempt
 * restored and paused before it asks for its range, a checkpoint completed, a change).
 */
abstract class StoreHistories<K, V> {

    static final JobID JOB = new JobID(7, 7);

    /** The store under test, new for each test. */
    abstract StoreUnderTest<K, V> store();

    final SinkStoreFactory<K, V> stores() {
        return store().stores();
    }

    final TypeInformation<V> valueType() {
        return store().valueType();
    }

    final K key(String name) {
        return store().key(name);
    }

    final V value(long amount) {
        return store().value(amount);
    }

    final Map<K, Long> live() {
        return store().live();
    }

    final Map<K, Long> committed() {
        return store().committed();
    }

    final String dump() {
        return store().dump();
    }

    /** A copy of the store's database, to put back as a promoted asynchronous standby would. */
    final DatabaseCopy copyOfTheDatabase() {
        return store().copyToGoBackTo().orElseThrow();
    }

    /** Both tables hold {@code totals}, key by key. */
    final void assertLiveAndCommitted(Map<K, Long> totals) {
        assertThat(live()).as("live").isEqualTo(totals);
        assertThat(committed()).as("committed").isEqualTo(totals);
    }

    /** A new job graph: a new run. */
    final FlushableSink<K, V> newRun() {
        return runOver(stores());
    }

    final FlushableSink<K, V> runOver(SinkStoreFactory<K, V> factory) {
        return FlushableSink.<K, V>builder().store(factory).valueType(valueType()).build();
    }

    final void upsert(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h,
            String key,
            long amount)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.upsert(key(key), value(amount))));
    }

    final void retire(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h, String key)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.retire(key(key))));
    }

    final void delete(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h, String key)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.delete(key(key))));
    }

    static <K, V> OperatorSubtaskState completed(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h, long id)
            throws Exception {
        OperatorSubtaskState state = checkpoint(h, id);
        h.notifyOfCompletedCheckpoint(id);
        return state;
    }

    /**
     * Attempt {@code attempt} of {@code run}, restored from {@code state} of checkpoint {@code
     * checkpointId} (or without state when {@code state} is null), and not opened: paused before it
     * asks for its range, or about to.
     */
    final KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> restoredAttempt(
            FlushableSink<K, V> run, int attempt, OperatorSubtaskState state, long checkpointId)
            throws Exception {
        return restoredAttempt(run, SinkHarnesses.GRAPH, attempt, state, checkpointId);
    }

    /** The same, deployed by {@code graph}: the execution graph of one JobManager's leadership. */
    final KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> restoredAttempt(
            FlushableSink<K, V> run,
            ExecutionGraphID graph,
            int attempt,
            OperatorSubtaskState state,
            long checkpointId)
            throws Exception {
        var h = attempt(run, store().keyType(), JOB, graph, MAX_PARALLELISM, 1, 0, attempt);
        if (state == null) {
            h.initializeEmptyState();
        } else {
            h.setRestoredCheckpointId(checkpointId);
            h.initializeState(state);
        }
        return h;
    }

    /** Attempt 0 writes a=100, b=10 and completes checkpoint 10. */
    final OperatorSubtaskState checkpoint10(FlushableSink<K, V> run) throws Exception {
        return checkpoint10(run, SinkHarnesses.GRAPH);
    }

    /** The same, deployed by {@code graph}. */
    final OperatorSubtaskState checkpoint10(FlushableSink<K, V> run, ExecutionGraphID graph)
            throws Exception {
        try (var first = restoredAttempt(run, graph, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            upsert(first, "b", 10);
            return completed(first, 10);
        }
    }
}
