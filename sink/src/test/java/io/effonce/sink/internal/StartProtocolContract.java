package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.attempt;
import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.stopWithSavepoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.Progress;
import io.effonce.sink.RestoreFlushPolicy;
import io.effonce.sink.SinkChange;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.testutils.GatedStore;
import io.effonce.sink.testutils.PauseGate;
import io.effonce.sink.testutils.SinkHarnesses;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /** The store every run of the test writes to. */
    abstract SinkStoreFactory<K, V> stores();

    abstract TypeInformation<K> keyType();

    abstract TypeInformation<V> valueType();

    abstract K key(String name);

    abstract V value(long amount);

    /** Live amounts per key. */
    abstract Map<K, Long> live();

    /** Committed amounts per key. */
    abstract Map<K, Long> committed();

    /** Everything the store keeps, for "changed nothing" assertions. */
    abstract String dump();

    /** A copy of the store's database, to put back as a promoted asynchronous standby would. */
    abstract DatabaseCopy copyOfTheDatabase() throws Exception;

    /** A copy of the database taken earlier. */
    interface DatabaseCopy {
        /** Puts the database back to the copy; the writers' sessions end with it. */
        void putBack() throws Exception;
    }

    /** Both tables hold {@code totals}, key by key. */
    private void assertLiveAndCommitted(Map<K, Long> totals) {
        assertThat(live()).as("live").isEqualTo(totals);
        assertThat(committed()).as("committed").isEqualTo(totals);
    }

    /** A new job graph: a new run. */
    private FlushableSink<K, V> newRun() {
        return runOver(stores());
    }

    private FlushableSink<K, V> runOver(SinkStoreFactory<K, V> factory) {
        return FlushableSink.<K, V>builder().store(factory).valueType(valueType()).build();
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

    private void delete(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h, String key)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.delete(key(key))));
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
        return restoredAttempt(run, SinkHarnesses.GRAPH, attempt, state, checkpointId);
    }

    /** The same, deployed by {@code graph}: the execution graph of one JobManager's leadership. */
    private KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> restoredAttempt(
            FlushableSink<K, V> run,
            ExecutionGraphID graph,
            int attempt,
            OperatorSubtaskState state,
            long checkpointId)
            throws Exception {
        var h = attempt(run, keyType(), JOB, graph, 1, 0, attempt);
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
        return checkpoint10(run, SinkHarnesses.GRAPH);
    }

    /** The same, deployed by {@code graph}. */
    private OperatorSubtaskState checkpoint10(FlushableSink<K, V> run, ExecutionGraphID graph)
            throws Exception {
        try (var first = restoredAttempt(run, graph, 0, null, 0)) {
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
            assertLiveAndCommitted(expected);
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
            assertLiveAndCommitted(Map.of(key("a"), 100L));
        }
    }

    /**
     * A stop-with-savepoint fails after its savepoint completed (a task failed, or the JobManager
     * failed over, before the job finished): Flink restores the last checkpoint, older than the
     * savepoint. The savepoint was acknowledged, not committed, so the restore is a restore like
     * any other: the savepoint's output is flushed away, and the job goes on.
     */
    @Test
    void aStopWithSavepointThatFailsAfterItsSavepointCompletedRecoversFromTheCheckpointBefore()
            throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at10;
        try (var stopping = restoredAttempt(run, 0, null, 0)) {
            stopping.open();
            upsert(stopping, "a", 100);
            upsert(stopping, "b", 10);
            at10 = completed(stopping, 10);
            upsert(stopping, "a", 200);
            upsert(stopping, "c", 5); // created after checkpoint 10
            stopWithSavepoint(stopping, 11);
            stopping.notifyOfCompletedCheckpoint(11);
        } // the job fails before it reaches FINISHED
        assertThat(live()).isEqualTo(Map.of(key("a"), 200L, key("b"), 10L, key("c"), 5L));
        assertThat(committed())
                .as("the savepoint acknowledged, not committed")
                .isEqualTo(Map.of(key("a"), 100L, key("b"), 10L));

        try (var restarted = restoredAttempt(run, 1, at10, 10)) {
            restarted.open();
            Map<K, Long> at10Totals = Map.of(key("a"), 100L, key("b"), 10L);
            assertLiveAndCommitted(at10Totals);
            upsert(restarted, "a", 200);
            upsert(restarted, "c", 5);
            completed(restarted, 12);
            Map<K, Long> replayed = Map.of(key("a"), 200L, key("b"), 10L, key("c"), 5L);
            assertLiveAndCommitted(replayed);
        }
    }

    /**
     * The counterfactual of the case above: the same history with checkpoint 11 where the savepoint
     * was. Flink never restores checkpoint 10 once 11 completed, so an attempt that did is stale:
     * committing the savepoint as a checkpoint would refuse the restarted job the same way, at
     * every restart, until its restarts ran out.
     */
    @Test
    void theSameHistoryWithACheckpointInsteadOfTheSavepointIsRefusedAsStale() throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at10;
        try (var first = restoredAttempt(run, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            upsert(first, "b", 10);
            at10 = completed(first, 10);
            upsert(first, "a", 200);
            completed(first, 11);
        }
        String before = dump();
        try (var restarted = restoredAttempt(run, 1, at10, 10)) {
            assertThatThrownBy(restarted::open)
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("committed checkpoint 11");
        }
        assertThat(dump()).isEqualTo(before);
    }

    /**
     * The same failed stop, then the job cancelled, and a new deployment from the savepoint, which
     * did complete. The restore of checkpoint 10 erased the savepoint's writes from the table; the
     * run's acknowledgement of savepoint 11 passed for proof that the table held them, and the
     * incremental flush from 11 left a at 100 and c gone, for good.
     */
    @Test
    void aSavepointTheRunErasedByRestoringAnOlderCheckpointIsNoProofForADeploymentFromIt()
            throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at10;
        OperatorSubtaskState at11;
        try (var stopping = restoredAttempt(run, 0, null, 0)) {
            stopping.open();
            upsert(stopping, "a", 100);
            at10 = completed(stopping, 10);
            upsert(stopping, "a", 200);
            upsert(stopping, "c", 5);
            at11 = stopWithSavepoint(stopping, 11);
            stopping.notifyOfCompletedCheckpoint(11);
        }
        try (var restarted = restoredAttempt(run, 1, at10, 10)) {
            restarted.open(); // Flink's own restore after the failed stop; then cancelled
            assertThat(live()).isEqualTo(Map.of(key("a"), 100L));
        }
        try (var fromSavepoint = restoredAttempt(newRun(), 0, at11, 11)) {
            fromSavepoint.open();
            Map<K, Long> at11Totals = Map.of(key("a"), 200L, key("c"), 5L);
            assertLiveAndCommitted(at11Totals);
        }
    }

    /**
     * The failed stop of the case above, but the run goes on after Flink's restore of 10: it writes
     * a=300 and b=7 under tag 10 (before its first barrier), commits 12, writes x=2, commits 13;
     * then it is cancelled and a new deployment starts from savepoint 11. The run's commit of 13
     * passed for proof that the table held every write before barrier 11, but 12 and 13 are of the
     * branch that forked at 10: the incremental flush from 11 left a at 300, b at 7 and c missing
     * (committed: c missing). The takeover of the restore of 10 marked savepoint 11 erased there
     * ({@code sink_savepoint_barriers}), so the deployment from it repairs the range from state and
     * deletes what that branch wrote from 10 on.
     */
    @Test
    void aDeploymentFromASavepointWhoseBranchItsRunErasedEndsAtTheSavepoint() throws Exception {
        deployFromASavepointItsRunErased(true);
    }

    /** The same with the savepoint's completion notice lost: the barrier's record is enough. */
    @Test
    void theSameWithTheSavepointsNoticeLost() throws Exception {
        deployFromASavepointItsRunErased(false);
    }

    private void deployFromASavepointItsRunErased(boolean acknowledged) throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at10;
        OperatorSubtaskState at11;
        try (var stopping = restoredAttempt(run, 0, null, 0)) {
            stopping.open();
            upsert(stopping, "a", 100);
            upsert(stopping, "x", 1);
            at10 = completed(stopping, 10);
            upsert(stopping, "a", 200);
            upsert(stopping, "c", 5);
            at11 = stopWithSavepoint(stopping, 11);
            if (acknowledged) {
                stopping.notifyOfCompletedCheckpoint(11);
            }
        }
        try (var restarted = restoredAttempt(run, 1, at10, 10)) {
            restarted.open(); // Flink's own restore after the failed stop
            upsert(restarted, "a", 300);
            upsert(restarted, "b", 7);
            completed(restarted, 12);
            upsert(restarted, "x", 2);
            completed(restarted, 13);
        } // cancelled
        try (var fromSavepoint = restoredAttempt(newRun(), 0, at11, 11)) {
            fromSavepoint.open();
            Map<K, Long> at11Totals = Map.of(key("a"), 200L, key("x"), 1L, key("c"), 5L);
            assertLiveAndCommitted(at11Totals);
            upsert(fromSavepoint, "d", 4);
            completed(fromSavepoint, 12);
            Map<K, Long> atTwelve =
                    Map.of(key("a"), 200L, key("x"), 1L, key("c"), 5L, key("d"), 4L);
            assertLiveAndCommitted(atTwelve);
        }
    }

    /**
     * Run R commits 10 (a=100) and 20 (a=200, b=2) and is cancelled; run Q is deployed from R's 10,
     * takes the range, and dies before its first commit; run P is deployed from R's 20. A Q that
     * finished its start committed 10 itself, so R's commit of 20 proves nothing for P. One cut
     * during its start's flush had not: its flush had set a back to 100 under tag 10 (and deleted
     * b), R's commit of 20 passed for proof, and P's incremental flush from 20 left live {a=100,
     * b=2} or {a=100} for good (found by review; cuts after 4 to 7 of Q's store calls, both
     * stores). Q's takeover now caps what R's commit proves at 10.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void aRunCutDuringItsStartFromAnOlderCheckpointLeavesNothingForALaterDeployment(int calls)
            throws Exception {
        deployFromTheLaterCheckpointAfterQ(false, 0, calls);
    }

    /**
     * The same Q, started whole: it writes a=999 and q=5 and dies with no barrier passed, or after
     * barriers up to 11 or 21 that never complete. Past 20 Q's barrier, an id of its own timeline,
     * no longer shows it outside the lineage; its start's commit of 10 does (its lineage forks from
     * R's there), and q goes.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 11, 21})
    void aRunThatRolledBackAndDiedLeavesNothingForADeploymentFromTheLaterCheckpoint(int lastBarrier)
            throws Exception {
        deployFromTheLaterCheckpointAfterQ(false, lastBarrier, -1);
    }

    /** The same with P deployed from R's acknowledged savepoint 20. */
    @Test
    void theSameWithTheLaterDeploymentFromASavepoint() throws Exception {
        deployFromTheLaterCheckpointAfterQ(true, 0, -1);
    }

    private void deployFromTheLaterCheckpointAfterQ(
            boolean fromSavepoint, int qLastBarrier, int qCutAfter) throws Exception {
        OperatorSubtaskState at10;
        OperatorSubtaskState at20;
        try (var h = restoredAttempt(newRun(), 0, null, 0)) {
            h.open();
            upsert(h, "a", 100);
            at10 = completed(h, 10);
            upsert(h, "a", 200);
            upsert(h, "b", 2);
            if (fromSavepoint) {
                at20 = stopWithSavepoint(h, 20);
                h.notifyOfCompletedCheckpoint(20);
            } else {
                at20 = completed(h, 20);
            }
        } // R cancelled
        FlushableSink<K, V> q =
                FlushableSink.<K, V>builder()
                        .store(qCutAfter < 0 ? stores() : GatedStore.gated(stores(), false))
                        .valueType(valueType())
                        .batchSize(1) // written at once, before any barrier
                        .build();
        PauseGate gate = new PauseGate();
        gate.bindToThisThread();
        if (qCutAfter >= 0) {
            gate.crashAfter(qCutAfter);
        }
        try (var h = restoredAttempt(q, 0, at10, 10)) {
            if (qCutAfter >= 0) {
                assertThatThrownBy(h::open).hasMessageContaining("process is gone");
            } else {
                h.open();
                upsert(h, "a", 999);
                upsert(h, "q", 5);
                for (long barrier = 11; barrier <= qLastBarrier; barrier++) {
                    checkpoint(h, barrier); // never completes
                }
            }
        } catch (Exception e) { // the cut attempt's close
            if (qCutAfter < 0) {
                throw e;
            }
        } finally {
            PauseGate.unbindThisThread();
        }
        try (var p = restoredAttempt(newRun(), 0, at20, 20)) {
            p.open();
            Map<K, Long> at20Totals = Map.of(key("a"), 200L, key("b"), 2L);
            assertThat(live()).as("live").isEqualTo(at20Totals);
            assertThat(committed()).as("committed").isEqualTo(at20Totals);
            upsert(p, "c", 3);
            completed(p, 21);
            Map<K, Long> at21 = Map.of(key("a"), 200L, key("b"), 2L, key("c"), 3L);
            assertLiveAndCommitted(at21);
        }
    }

    /**
     * A savepoint before the run's first checkpoint: Flink restarts the run without state, its
     * start (row 5) resets the range, and it goes on to write a=300, b=7 and commit 2. The reset
     * took the record that the restart erased savepoint 1 with it, and a deployment from savepoint
     * 1 took the run's commit of 2 for proof (found by review): the erased marks survive a reset
     * now.
     */
    @Test
    void aSavepointErasedByARestartWithoutStateStaysErasedThroughItsReset() throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at1;
        try (var first = restoredAttempt(run, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            upsert(first, "x", 1);
            at1 = stopWithSavepoint(first, 1);
            first.notifyOfCompletedCheckpoint(1);
        } // the stop fails; no checkpoint completed: the run restarts without state
        try (var restarted = restoredAttempt(run, 1, null, 0)) {
            restarted.open();
            upsert(restarted, "a", 300);
            upsert(restarted, "b", 7);
            completed(restarted, 2);
        } // cancelled
        try (var fromSavepoint = restoredAttempt(newRun(), 0, at1, 1)) {
            fromSavepoint.open();
            Map<K, Long> at1Totals = Map.of(key("a"), 100L, key("x"), 1L);
            assertLiveAndCommitted(at1Totals);
        }
    }

    /**
     * A failed stop erases savepoint 6; the run's other branch writes a=300, b=7 and commits 7;
     * then the database goes back to a copy from before the savepoint, losing its record with x=1.
     * The run notices, restores 7 and repairs the range from state; a deployment from savepoint 6
     * then took the repaired run's commit for proof and never wrote x back (found by review). A
     * restore of a checkpoint older than a repair of the range runs the full flush.
     */
    @Test
    void aDeploymentFromASnapshotOlderThanARepairRunsTheFullFlush() throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at5;
        OperatorSubtaskState at6;
        DatabaseCopy before6;
        try (var stopping = restoredAttempt(run, 0, null, 0)) {
            stopping.open();
            upsert(stopping, "a", 100);
            at5 = completed(stopping, 5);
            before6 = copyOfTheDatabase();
            upsert(stopping, "a", 200);
            upsert(stopping, "x", 1);
            at6 = stopWithSavepoint(stopping, 6);
            stopping.notifyOfCompletedCheckpoint(6);
        }
        OperatorSubtaskState at7;
        try (var other = restoredAttempt(run, 1, at5, 5)) {
            other.open();
            upsert(other, "a", 300);
            upsert(other, "b", 7);
            at7 = completed(other, 7);
            before6.putBack();
            upsert(other, "a", 400);
            assertThatThrownBy(() -> other.prepareSnapshotPreBarrier(8))
                    .isInstanceOf(LostWritesException.class);
        }
        try (var repairing = restoredAttempt(run, 2, at7, 7)) {
            repairing.open();
            assertThat(live()).isEqualTo(Map.of(key("a"), 300L, key("b"), 7L));
        } // cancelled
        try (var fromSavepoint = restoredAttempt(newRun(), 0, at6, 6)) {
            fromSavepoint.open();
            Map<K, Long> at6Totals = Map.of(key("a"), 200L, key("x"), 1L);
            assertLiveAndCommitted(at6Totals);
        }
    }

    /**
     * A state that names no run (written before runs were named) took any run's commit for proof; a
     * run deployed from such a state names its lineage with every commit, and its commits are of
     * another timeline than the claim's (found by review). Only a commit that names no lineage
     * either counts.
     */
    @Test
    void aStateThatNamesNoRunTakesNoProofFromACommitThatNamesItsLineage() throws Exception {
        KeyGroupSpan span = new KeyGroupSpan(0, 127);
        try (SinkStore<K, V> earlier = stores().create()) {
            earlier.takeOwnership(
                    span,
                    new Claim(AttemptId.of("d1-r2", "sink", 0, 1, 0), OptionalLong.of(8)),
                    found -> true);
            earlier.commit(15, Progress.UNKNOWN);
        }
        try (SinkStore<K, V> later = stores().create()) {
            Takeover takeover =
                    later.takeOwnership(
                            span,
                            new Claim(AttemptId.of("d2-r3", "sink", 0, 1, 0), OptionalLong.of(10)),
                            found -> false);
            assertThat(takeover.found().durableThrough())
                    .as("the commit of 15 by a run that named its lineage")
                    .isZero();
        }
    }

    /**
     * A new deployment restored from a completed savepoint commits what the savepoint staged, and
     * its flush is incremental: the savepoint's acknowledgement proves every write before its
     * barrier durable, as a commit would.
     */
    @Test
    void aDeploymentFromACompletedSavepointCommitsItAndFlushesIncrementally() throws Exception {
        FlushableSink<K, V> stopped = newRun();
        OperatorSubtaskState atSavepoint;
        try (var stopping = restoredAttempt(stopped, 0, null, 0)) {
            stopping.open();
            upsert(stopping, "a", 100);
            completed(stopping, 10);
            upsert(stopping, "a", 200);
            upsert(stopping, "c", 5);
            atSavepoint = stopWithSavepoint(stopping, 11);
            stopping.notifyOfCompletedCheckpoint(11);
        }
        try (var upgraded = restoredAttempt(newRun(), 0, atSavepoint, 11)) {
            upgraded.open();
            Map<K, Long> atEleven = Map.of(key("a"), 200L, key("c"), 5L);
            assertLiveAndCommitted(atEleven);
            assertThat(((FlushableSinkOperator<?, ?>) upgraded.getOperator()).lastFlush().mode())
                    .isEqualTo(RestoreFlush.Mode.INCREMENTAL);
        }
    }

    /**
     * A TaskManager lost after checkpoint 11 completed and before its notice reached the sink (the
     * window is the commit's own transaction; with checkpoints back to back a kill lands in it
     * often). The barrier of 11 was recorded in the fence after the writes before it, and before
     * the checkpoint could complete: the restore commits 11 itself and flushes incrementally, where
     * it once set every key of state again.
     */
    @Test
    void aCompletionNoticeLostWithItsTaskManagerCostsNoFullFlush() throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at11;
        try (var first = restoredAttempt(run, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            upsert(first, "b", 10);
            completed(first, 10);
            upsert(first, "a", 200);
            upsert(first, "c", 5);
            at11 = checkpoint(first, 11); // completes; the notice is lost with the TaskManager
        }
        assertThat(committed()).isEqualTo(Map.of(key("a"), 100L, key("b"), 10L));
        try (var restarted = restoredAttempt(run, 1, at11, 11)) {
            restarted.open();
            Map<K, Long> at11Totals = Map.of(key("a"), 200L, key("b"), 10L, key("c"), 5L);
            assertThat(((FlushableSinkOperator<?, ?>) restarted.getOperator()).lastFlush().mode())
                    .isEqualTo(RestoreFlush.Mode.INCREMENTAL);
            assertLiveAndCommitted(at11Totals);
        }
    }

    /**
     * The fence proves a barrier its owner passed, not the checkpoint its takeover recorded. The
     * database went back past checkpoint 11's writes; the attempt restoring 11 took the range (its
     * fence row: restored 11) and was gone before its repair. Were that row a barrier passed, the
     * next attempt would flush incrementally from 11, find no row tagged 11 or later, and leave a
     * at 100 and c missing for good (with the rule off, checked by hand on both stores, 2026-12-06:
     * {a=100, b=10}).
     */
    @Test
    void anOwnerGoneBeforeItsRepairProvesNoBarrier() throws Exception {
        FlushableSink<K, V> run = runOver(GatedStore.gated(stores(), false));
        OperatorSubtaskState at11;
        DatabaseCopy at10;
        new PauseGate().bindToThisThread();
        try (var first = restoredAttempt(run, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            upsert(first, "b", 10);
            completed(first, 10);
            at10 = copyOfTheDatabase();
            upsert(first, "a", 200);
            upsert(first, "c", 5);
            at11 = completed(first, 11);
        } finally {
            PauseGate.unbindThisThread();
        }
        at10.putBack();
        PauseGate dies = new PauseGate();
        dies.bindToThisThread();
        dies.crashAfter(1); // the takeover passes; the process is gone before the repair
        try (var cut = restoredAttempt(run, 1, at11, 11)) {
            assertThatThrownBy(cut::open).hasMessageContaining("process is gone");
        } finally {
            PauseGate.unbindThisThread();
        }
        new PauseGate().bindToThisThread();
        try (var next = restoredAttempt(run, 2, at11, 11)) {
            next.open();
            Map<K, Long> at11Totals = Map.of(key("a"), 200L, key("b"), 10L, key("c"), 5L);
            assertLiveAndCommitted(at11Totals);
        } finally {
            PauseGate.unbindThisThread();
        }
    }

    /**
     * A fresh start with {@code sink.reset-on-fresh-start} takes the range, then deletes what the
     * earlier deployment left; its process dies in between. The next attempt of the same run finds
     * the range its run's, and no state: it finishes the reset. (With the rule before, it deleted
     * live and staged rows only: the old deployment's committed values and progress stayed.)
     */
    @Test
    void aResetCutBetweenItsTakeoverAndItsDeleteIsFinishedByTheNextAttempt() throws Exception {
        checkpoint10(newRun()); // an earlier deployment: a=100, b=10, live and committed
        FlushableSink<K, V> resetting =
                FlushableSink.<K, V>builder()
                        .store(GatedStore.gated(stores(), false))
                        .valueType(valueType())
                        .resetOnFreshStart(true)
                        .build();
        PauseGate dies = new PauseGate();
        dies.bindToThisThread();
        dies.crashAfter(1); // the takeover passes; the process is gone before the delete
        try (var cut = restoredAttempt(resetting, 0, null, 0)) {
            assertThatThrownBy(cut::open).hasMessageContaining("process is gone");
        } finally {
            PauseGate.unbindThisThread();
        }
        assertThat(committed())
                .as("what the cut reset left")
                .isEqualTo(Map.of(key("a"), 100L, key("b"), 10L));

        new PauseGate().bindToThisThread();
        try (var next = restoredAttempt(resetting, 1, null, 0)) {
            next.open();
            assertThat(live()).isEmpty();
            assertThat(committed()).isEmpty();
            upsert(next, "c", 5);
            completed(next, 1);
            assertLiveAndCommitted(Map.of(key("c"), 5L));
        } finally {
            PauseGate.unbindThisThread();
        }
    }

    /**
     * Found by the exploration: a run's first attempt staged {@code a} at barrier 1 and died before
     * checkpoint 1 completed; its next attempt (row 5) flushed the erased run's live rows away and
     * died before its reset deleted the staged value. A fresh start with the reset then found no
     * live row and began (row 6) without deleting: its first commit moved the erased run's {@code
     * a} into the committed table for good. A staged or committed row is a row: it resets.
     */
    @Test
    void aStartCutAfterItsFlushLeavesNoStagedValueForTheNextDeploymentToCommit() throws Exception {
        FlushableSink<K, V> erased =
                FlushableSink.<K, V>builder()
                        .store(GatedStore.gated(stores(), false))
                        .valueType(valueType())
                        .build();
        new PauseGate().bindToThisThread();
        try (var first = restoredAttempt(erased, 0, null, 0)) {
            first.open();
            upsert(first, "a", 1);
            checkpoint(first, 1); // never completes
        } finally {
            PauseGate.unbindThisThread();
        }
        PauseGate dies = new PauseGate();
        dies.bindToThisThread();
        dies.crashAfter(3); // takeover, tag index, delete; gone before the reset
        try (var cut = restoredAttempt(erased, 1, null, 0)) {
            assertThatThrownBy(cut::open).hasMessageContaining("process is gone");
        } finally {
            PauseGate.unbindThisThread();
        }
        assertThat(live()).as("the cut start deleted the erased run's live row").isEmpty();

        FlushableSink<K, V> next =
                FlushableSink.<K, V>builder()
                        .store(stores())
                        .valueType(valueType())
                        .resetOnFreshStart(true)
                        .build();
        try (var fresh = restoredAttempt(next, 0, null, 0)) {
            fresh.open();
            upsert(fresh, "c", 5);
            completed(fresh, 1);
            assertLiveAndCommitted(Map.of(key("c"), 5L));
        }
    }

    /**
     * History 1 of the JobManager failover: attempt 1 of the first JobManager restored checkpoint
     * 10 and froze before it asked for its range. The new JobManager numbers attempts from 0 again:
     * its attempt 0 restored the same checkpoint, took the range, retired a day and passed barrier
     * 11 (its completion notice not in yet). The frozen attempt wakes: by attempt number it is the
     * later one. It waits for a barrier of its own, which an attempt of a JobManager that lost its
     * leadership never gets; it writes nothing, and a barrier no newer than the owner's is refused.
     */
    @Test
    void anAttemptOfAnEarlierJobManagerWaitsForABarrierAndWritesNothing() throws Exception {
        FlushableSink<K, V> run = newRun();
        ExecutionGraphID before = new ExecutionGraphID();
        ExecutionGraphID after = new ExecutionGraphID();
        OperatorSubtaskState at10 = checkpoint10(run, before);
        var frozen = restoredAttempt(run, before, 1, at10, 10);
        try (var current = restoredAttempt(run, after, 0, at10, 10)) {
            current.open();
            upsert(current, "a", 200);
            upsert(current, "c", 5);
            retire(current, "a"); // final at 200
            checkpoint(current, 11); // acknowledged; the notice is not in yet
            String before11 = dump();

            frozen.open();
            upsert(frozen, "b", 999);
            assertThat(dump()).as("the woken attempt took and wrote nothing").isEqualTo(before11);
            assertThatThrownBy(() -> frozen.prepareSnapshotPreBarrier(11))
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("deployed by another JobManager")
                    .hasMessageContaining("passed barrier 11");
            assertThat(dump()).isEqualTo(before11);

            current.notifyOfCompletedCheckpoint(11);
            Map<K, Long> expected = Map.of(key("a"), 200L, key("b"), 10L, key("c"), 5L);
            assertLiveAndCommitted(expected);
        } finally {
            frozen.close();
        }
    }

    /**
     * The counterfactual of the case above: the same history with both JobManagers' attempts in one
     * graph, as attempt numbers alone see it. The woken attempt 1 is taken for the newer, flushes
     * back to checkpoint 10 and drops checkpoint 11's staged values; the current attempt is fenced,
     * Flink restores checkpoint 11, and the day retired at 200 stays at 100 for good, live and
     * committed (unless retired values are kept, see below).
     */
    @Test
    void withoutTheGraphTheWokenAttemptRollsARetiredDayBackForGood() throws Exception {
        // Without retired values too: kept, they let the full flush after the restore write the
        // day again, a second defence this counterfactual takes away to show the first.
        FlushableSink<K, V> run =
                FlushableSink.<K, V>builder()
                        .store(stores())
                        .valueType(valueType())
                        .retiredRetention(java.time.Duration.ZERO)
                        .build();
        OperatorSubtaskState at10 = checkpoint10(run);
        var frozen = restoredAttempt(run, 1, at10, 10);
        OperatorSubtaskState at11;
        try (var current = restoredAttempt(run, 0, at10, 10)) {
            current.open();
            upsert(current, "a", 200);
            retire(current, "a");
            at11 = checkpoint(current, 11);
            frozen.open();
            assertThatThrownBy(() -> current.notifyOfCompletedCheckpoint(11))
                    .hasStackTraceContaining("no longer owns");
        } finally {
            frozen.close();
        }
        try (var restored = restoredAttempt(run, 2, at11, 11)) {
            restored.open();
            assertThat(live()).containsEntry(key("a"), 100L);
            assertThat(committed()).containsEntry(key("a"), 100L);
        }
    }

    /**
     * A JobManager fails over while checkpoint 11 is in flight: the old JobManager's attempt had
     * restored checkpoint 10 and passed barrier 11. The new one's attempt 0 restores checkpoint 10
     * too; it cannot tell by attempt numbers, so it holds its output until its first barrier, 12,
     * newer than 11: then it takes the range, flushes to 10 and writes what it held.
     */
    @Test
    void theNewJobManagersAttemptTakesTheRangeAtItsFirstBarrier() throws Exception {
        FlushableSink<K, V> run = newRun();
        ExecutionGraphID before = new ExecutionGraphID();
        ExecutionGraphID after = new ExecutionGraphID();
        OperatorSubtaskState at10 = checkpoint10(run, before);
        try (var old = restoredAttempt(run, before, 1, at10, 10)) {
            old.open();
            upsert(old, "a", 150);
            upsert(old, "d", 1);
            checkpoint(old, 11); // never completes: the JobManager fails over
        }
        Map<K, Long> leftByTheOldOne = live();

        try (var current = restoredAttempt(run, after, 0, at10, 10)) {
            current.open();
            upsert(current, "b", 20);
            assertThat(live())
                    .as("nothing written before the first barrier")
                    .isEqualTo(leftByTheOldOne);
            completed(current, 12);
            Map<K, Long> expected = Map.of(key("a"), 100L, key("b"), 20L);
            assertLiveAndCommitted(expected);
        }
    }

    /**
     * After a JobManager failover the owner's attempt number says nothing: a new JobManager's
     * attempt 0 is not refused by the old one's attempt 25 that restored the same checkpoint (as
     * attempt numbers alone would, until Flink's restarts numbered it past 25); it takes the range
     * at its first barrier.
     */
    @Test
    void aNewJobManagersFirstAttemptIsNotRefusedByAnOldOnesHigherAttemptNumber() throws Exception {
        FlushableSink<K, V> run = newRun();
        ExecutionGraphID before = new ExecutionGraphID();
        OperatorSubtaskState at10 = checkpoint10(run, before);
        try (var old = restoredAttempt(run, before, 25, at10, 10)) {
            old.open();
            upsert(old, "a", 300);
        }
        try (var current = restoredAttempt(run, new ExecutionGraphID(), 0, at10, 10)) {
            current.open();
            completed(current, 11);
            Map<K, Long> at10Totals = Map.of(key("a"), 100L, key("b"), 10L);
            assertLiveAndCommitted(at10Totals);
        }
    }

    /**
     * History 2, a deployment the fence never saw: a deployment from a savepoint whose only attempt
     * froze before its takeover is cancelled, and the same savepoint deployed again; the second
     * runs, retires a day, commits. The first's attempt wakes: the store numbered both deployments
     * when their graphs were built, so it is the earlier one: refused, every table as it was.
     */
    @Test
    void anAttemptOfAnEarlierDeploymentThatNeverTookItsRangeIsRefused() throws Exception {
        OperatorSubtaskState at10 = checkpoint10(newRun());
        var frozen = restoredAttempt(newRun(), 0, at10, 10);
        try (var second = restoredAttempt(newRun(), 0, at10, 10)) {
            second.open();
            upsert(second, "a", 200);
            retire(second, "a");
            upsert(second, "c", 5);
            completed(second, 11);
            String before = dump();

            assertThatThrownBy(frozen::open)
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("a later deployment of the job");
            assertThat(dump()).isEqualTo(before);

            upsert(second, "b", 30);
            completed(second, 12);
            Map<K, Long> expected = Map.of(key("a"), 200L, key("b"), 30L, key("c"), 5L);
            assertLiveAndCommitted(expected);
        } finally {
            frozen.close();
        }
    }

    /**
     * The counterfactual: the same history with deployments the store did not number. The woken
     * attempt is taken for a newer deployment: it rolls live and committed back to the savepoint
     * (the retired day to 100) and supersedes the running deployment, whose next commit is fenced
     * (and every later attempt refused, for good).
     */
    @Test
    void withoutDeploymentNumbersTheWokenAttemptRollsTheRunningDeploymentBack() throws Exception {
        SinkStoreFactory<K, V> unnumbered = () -> stores().create();
        OperatorSubtaskState at10 = checkpoint10(runOver(unnumbered));
        var frozen = restoredAttempt(runOver(unnumbered), 0, at10, 10);
        try (var second = restoredAttempt(runOver(unnumbered), 0, at10, 10)) {
            second.open();
            upsert(second, "a", 200);
            retire(second, "a");
            completed(second, 11);

            frozen.open();
            assertThat(committed()).containsEntry(key("a"), 100L);
            upsert(second, "b", 30);
            assertThatThrownBy(() -> completed(second, 12))
                    .hasStackTraceContaining("no longer owns");
        } finally {
            frozen.close();
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

    /*
     * The database goes back in time (a copy put back), after deletes and after an operator's
     * rollback to an older checkpoint as a new run: the sink notices at its next write, and the
     * restore of its last completed checkpoint leaves live and committed exact.
     */

    /**
     * Writes a=100 and d=20 (1), a=200 (2); the database is copied; deletes d (3), writes a=300
     * (4); the copy is put back, bringing d back; the sink fails at its next write and restores 4.
     */
    private void goBackPastADelete(FlushableSink<K, V> run) throws Exception {
        OperatorSubtaskState at4;
        try (var h = restoredAttempt(run, 0, null, 0)) {
            h.open();
            upsert(h, "a", 100);
            upsert(h, "d", 20);
            completed(h, 1);
            upsert(h, "a", 200);
            completed(h, 2);
            DatabaseCopy copy = copyOfTheDatabase();
            delete(h, "d");
            completed(h, 3);
            upsert(h, "a", 300);
            at4 = completed(h, 4);
            copy.putBack();
            assertThat(live()).containsEntry(key("d"), 20L);
            upsert(h, "a", 500);
            assertThatThrownBy(() -> h.prepareSnapshotPreBarrier(5))
                    .isInstanceOf(LostWritesException.class);
        }
        try (var restored = restoredAttempt(run, 1, at4, 4)) {
            restored.open();
        }
    }

    @Test
    void aDatabaseThatGoesBackPastADeleteHasTheKeyDeletedAgainByTheRepair() throws Exception {
        goBackPastADelete(newRun());
        assertLiveAndCommitted(Map.of(key("a"), 300L));
    }

    @Test
    void withoutTombstonesInStateTheDeletedKeyComesBackForGood() throws Exception {
        goBackPastADelete(
                FlushableSink.<K, V>builder()
                        .store(stores())
                        .valueType(valueType())
                        .retiredRetention(Duration.ZERO)
                        .build());
        assertThat(live()).containsEntry(key("d"), 20L);
        assertThat(committed()).containsEntry(key("d"), 20L);
    }

    /**
     * The old run stops with savepoint 3, which the sink acknowledges; the operator rolls back to
     * checkpoint 1 as a new run, which commits its own 2; the database is copied, the new run
     * commits its 3, and the copy is put back. The old run's acknowledged savepoint 3 passed for
     * the new run's commit of 3: the incremental flush left a at the lost window's 100.
     */
    @Test
    void anAcknowledgedSavepointOfTheOldRunDoesNotPassForTheNewRunsCommit() throws Exception {
        OperatorSubtaskState at1;
        try (var old = restoredAttempt(newRun(), 0, null, 0)) {
            old.open();
            upsert(old, "a", 100);
            at1 = completed(old, 1);
            upsert(old, "a", 200);
            completed(old, 2);
            stopWithSavepoint(old, 3);
            old.notifyOfCompletedCheckpoint(3);
        }
        FlushableSink<K, V> rolledBack = newRun();
        OperatorSubtaskState at3;
        try (var v2 = restoredAttempt(rolledBack, 0, at1, 1)) {
            v2.open();
            assertThat(live()).isEqualTo(Map.of(key("a"), 100L));
            upsert(v2, "b", 50);
            completed(v2, 2);
            DatabaseCopy copy = copyOfTheDatabase();
            upsert(v2, "a", 150);
            at3 = completed(v2, 3);
            copy.putBack();
            upsert(v2, "b", 60);
            assertThatThrownBy(() -> v2.prepareSnapshotPreBarrier(4))
                    .isInstanceOf(LostWritesException.class);
        }
        try (var restored = restoredAttempt(rolledBack, 1, at3, 3)) {
            restored.open();
        }
        assertLiveAndCommitted(Map.of(key("a"), 150L, key("b"), 50L));
    }

    /**
     * The old run commits 1 to 3 and a backup is taken; the operator rolls back to checkpoint 1 as
     * a new run, which commits its own 2 and 3; then the backup is restored. Its progress says 3,
     * the old run's: the incremental flush kept the old timeline's a and b, and lost c.
     */
    @Test
    void theOldRunsCheckpointsDoNotPassForTheNewRunsAndItsKeysGo() throws Exception {
        OperatorSubtaskState at1;
        DatabaseCopy backup;
        try (var old = restoredAttempt(newRun(), 0, null, 0)) {
            old.open();
            upsert(old, "a", 100);
            at1 = completed(old, 1);
            upsert(old, "a", 200);
            upsert(old, "b", 10);
            completed(old, 2);
            upsert(old, "a", 300);
            completed(old, 3);
            backup = copyOfTheDatabase();
        }
        FlushableSink<K, V> rolledBack = newRun();
        OperatorSubtaskState at3;
        try (var v2 = restoredAttempt(rolledBack, 0, at1, 1)) {
            v2.open();
            upsert(v2, "a", 150);
            completed(v2, 2);
            upsert(v2, "c", 5);
            at3 = completed(v2, 3);
            assertThat(committed()).isEqualTo(Map.of(key("a"), 150L, key("c"), 5L));
            backup.putBack();
            assertThat(live()).isEqualTo(Map.of(key("a"), 300L, key("b"), 10L));
            upsert(v2, "c", 6);
            assertThatThrownBy(() -> v2.prepareSnapshotPreBarrier(4))
                    .isInstanceOf(LostWritesException.class);
        }
        try (var restored = restoredAttempt(rolledBack, 1, at3, 3)) {
            restored.open();
        }
        assertLiveAndCommitted(Map.of(key("a"), 150L, key("c"), 5L));
    }

    /**
     * A repair writes a retired key's final row back from its retained value, tagged with the
     * restored checkpoint. Once state no longer retains that value (its retention ran out; here a
     * deployment that keeps none), a later restore from the same checkpoint finds the row tagged
     * with it and state without the key, as it finds a write of the erased run. The row is the
     * value committed at the checkpoint and stays. (Found by the nemesis soak, seed 30756, fault
     * 157: a JobManager killed while the sink repaired a database that went back; a day's 300 final
     * rows went.) Counterfactual: without the check of the committed value, {@code a} goes from the
     * live table for good.
     */
    @Test
    void aFinalRowARepairWroteBackStaysOnceItsValueIsNoLongerRetained() throws Exception {
        OperatorSubtaskState at10;
        try (var first = restoredAttempt(newRun(), 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            retire(first, "a");
            upsert(first, "b", 10);
            at10 = completed(first, 10);
        }
        FlushableSink<K, V> repairing =
                FlushableSink.<K, V>builder()
                        .store(stores())
                        .valueType(valueType())
                        .restoreFlush(RestoreFlushPolicy.FULL)
                        .build();
        try (var repair = restoredAttempt(repairing, 0, at10, 10)) {
            repair.open();
            assertThat(live()).isEqualTo(Map.of(key("a"), 100L, key("b"), 10L));
        }
        FlushableSink<K, V> retainingNothing =
                FlushableSink.<K, V>builder()
                        .store(stores())
                        .valueType(valueType())
                        .retiredRetention(Duration.ZERO)
                        .build();
        try (var later = restoredAttempt(retainingNothing, 0, at10, 10)) {
            later.open();
            upsert(later, "b", 20);
            completed(later, 11);
        }
        assertLiveAndCommitted(Map.of(key("a"), 100L, key("b"), 20L));
    }
}
