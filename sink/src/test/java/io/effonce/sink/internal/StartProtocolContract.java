package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.attempt;
import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.store.StaleAttemptException;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The start protocol's cases, run by every store: the in-memory store earns its place in fast tests
 * only because these pass against it and against PostgreSQL alike.
 *
 * <p>A pause is an attempt that restored ({@code initializeState}) and has not yet asked for its
 * range ({@code open}): it asks later, after a newer attempt ran. The figures are the ones the
 * stale-attempt trace was found with: a key retired between checkpoints 11 and 12 at 200, that a
 * stale flush from 10 would put back to 100 for good.
 */
abstract class StartProtocolContract<K, V> {

    private static final JobID JOB = new JobID(7, 7);

    /** A new job graph: a new run. */
    abstract FlushableSink<K, V> newRun();

    abstract TypeInformation<K> keyType();

    abstract K key(String name);

    abstract V value(long amount);

    /** Live amounts per key. */
    abstract Map<K, Long> live();

    /** Committed amounts per key. */
    abstract Map<K, Long> committed();

    /** Everything the store keeps, for "changed nothing" assertions. */
    abstract String dump();

    private KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> attemptOf(
            FlushableSink<K, V> run, int attempt) throws Exception {
        return attempt(run, keyType(), JOB, 1, 0, attempt);
    }

    private void upsert(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h,
            String key,
            long amount)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.upsert(key(key), value(amount))));
    }

    private void retire(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h, String key)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.retire(key(key))));
    }

    private static <K, V> OperatorSubtaskState completed(
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
    private KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> restoredAttempt(
            FlushableSink<K, V> run, int attempt, OperatorSubtaskState state, long checkpointId)
            throws Exception {
        var h = attemptOf(run, attempt);
        if (state == null) {
            h.initializeEmptyState();
        } else {
            h.setRestoredCheckpointId(checkpointId);
            h.initializeState(state);
        }
        return h;
    }

    /** Attempt 0 writes a=100, b=10 and completes checkpoint 10. */
    private OperatorSubtaskState checkpoint10(FlushableSink<K, V> run) throws Exception {
        try (var first = restoredAttempt(run, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            upsert(first, "b", 10);
            return completed(first, 10);
        }
    }

    @Test
    void aRestoredAttemptThatWakesUpAfterANewerOneCommittedIsRefusedAndChangesNothing()
            throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at10 = checkpoint10(run);
        var paused = restoredAttempt(run, 1, at10, 10);

        try (var newer = restoredAttempt(run, 2, at10, 10)) {
            newer.open();
            upsert(newer, "a", 200);
            upsert(newer, "b", 20);
            upsert(newer, "c", 5); // created after checkpoint 10
            completed(newer, 11);
            retire(newer, "a"); // final at 200
            completed(newer, 12);
            Map<K, Long> expected = Map.of(key("a"), 200L, key("b"), 20L, key("c"), 5L);
            assertThat(live()).isEqualTo(expected);
            assertThat(committed()).isEqualTo(expected);
            String before = dump();

            assertThatThrownBy(paused::open)
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("attempt 1")
                    .hasMessageContaining("committed checkpoint 12");
            assertThat(dump()).as("the stale attempt changed nothing").isEqualTo(before);

            upsert(newer, "b", 30);
            completed(newer, 13);
            assertThat(live()).containsEntry(key("a"), 200L).containsEntry(key("b"), 30L);
            assertThat(committed()).containsEntry(key("a"), 200L).containsEntry(key("b"), 30L);
        } finally {
            paused.close();
        }
    }

    @Test
    void aFirstAttemptThatWakesUpAfterANewerOneCommittedIsRefusedAndDeletesNothing()
            throws Exception {
        FlushableSink<K, V> run = newRun();
        var paused = restoredAttempt(run, 0, null, 0);

        try (var newer = restoredAttempt(run, 1, null, 0)) {
            newer.open();
            upsert(newer, "a", 100);
            completed(newer, 1);
            retire(newer, "a");
            upsert(newer, "b", 7);
            completed(newer, 2);
            String before = dump();

            assertThatThrownBy(paused::open)
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("committed checkpoint 2");
            assertThat(dump()).isEqualTo(before);
            assertThat(live()).containsEntry(key("a"), 100L).containsEntry(key("b"), 7L);
        } finally {
            paused.close();
        }
    }

    @Test
    void anAttemptOlderThanTheOwnerOfItsSubtaskIsRefusedBeforeAnyCheckpointCompleted()
            throws Exception {
        FlushableSink<K, V> run = newRun();
        var paused = restoredAttempt(run, 0, null, 0);

        try (var newer = restoredAttempt(run, 1, null, 0)) {
            newer.open();
            upsert(newer, "a", 100);
            newer.prepareSnapshotPreBarrier(1); // written; checkpoint 1 not complete
            String before = dump();

            assertThatThrownBy(paused::open)
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("attempt 1");
            assertThat(dump()).isEqualTo(before);
        } finally {
            paused.close();
        }
    }

    @Test
    void aLaterAttemptTakesOverFromAnEarlierOneAndFlushesToTheRestoredCheckpoint()
            throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at10 = checkpoint10(run);
        try (var failed = restoredAttempt(run, 1, at10, 10)) {
            failed.open();
            upsert(failed, "a", 150);
            upsert(failed, "d", 1);
            failed.prepareSnapshotPreBarrier(11); // checkpoint 11 never completes
        }
        try (var restarted = restoredAttempt(run, 2, at10, 10)) {
            restarted.open();
            assertThat(live()).isEqualTo(Map.of(key("a"), 100L, key("b"), 10L));
        }
    }

    @Test
    void anAttemptOfARunALaterDeploymentTookOverFromIsRefused() throws Exception {
        FlushableSink<K, V> oldRun = newRun();
        OperatorSubtaskState at10 = checkpoint10(oldRun);
        var paused = restoredAttempt(oldRun, 1, at10, 10);

        // from a savepoint of the old run
        try (var redeployed = restoredAttempt(newRun(), 0, at10, 10)) {
            redeployed.open();
            upsert(redeployed, "b", 50);
            completed(redeployed, 11);
            String before = dump();

            assertThatThrownBy(paused::open)
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("later deployment");
            assertThat(dump()).isEqualTo(before);
        } finally {
            paused.close();
        }
    }

    @Test
    void aNewDeploymentFromAnOlderSavepointStillRollsLiveAndCommittedBack() throws Exception {
        FlushableSink<K, V> oldRun = newRun();
        OperatorSubtaskState at10;
        try (var first = restoredAttempt(oldRun, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            at10 = completed(first, 10);
            upsert(first, "a", 200);
            upsert(first, "e", 9);
            completed(first, 11);
        }
        assertThat(committed()).isEqualTo(Map.of(key("a"), 200L, key("e"), 9L));

        try (var rolledBack = restoredAttempt(newRun(), 0, at10, 10)) {
            rolledBack.open();
            assertThat(live()).isEqualTo(Map.of(key("a"), 100L));
            assertThat(committed()).isEqualTo(Map.of(key("a"), 100L));
        }
    }

    @Test
    void aRefusedFreshStartChangesNothing() throws Exception {
        checkpoint10(newRun());
        String before = dump();

        try (var fresh = restoredAttempt(newRun(), 0, null, 0)) {
            assertThatThrownBy(fresh::open).hasMessageContaining("Refusing a fresh start");
        }
        assertThat(dump()).isEqualTo(before);
    }
}
