package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.stopWithSavepoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.Progress;
import io.effonce.sink.testutils.GatedStore;
import io.effonce.sink.testutils.PauseGate;
import io.effonce.sink.testutils.SinkHarnesses;
import io.effonce.sink.testutils.StoreUnderTest.DatabaseCopy;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a restore may take for proof that the table holds every write before its checkpoint's
 * barrier, run by every store: commits and recorded barriers (a lost completion notice), savepoints
 * completed and then erased by a restore of an older checkpoint, runs cut during their own start,
 * deployments from older snapshots, and databases that go back under them. Each ends with live and
 * committed equal to the restored snapshot's totals; the wrong totals each rule prevents are in its
 * test's comment and in docs/flushable-sink.md's rules.
 */
abstract class RestoreProofContract<K, V> extends StoreHistories<K, V> {

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
     * A failed stop erases savepoint 1 and the run restarts without state; the database goes back
     * to a copy from before the savepoint's barrier, forgetting it, before the restart takes the
     * range. The restart writes a=10 (tagged 0: it restored nothing) and commits 2; a deployment
     * from savepoint 1 took that commit for proof and flushed from tag 1, leaving a=10 in live for
     * good (found by the sampled properties). The restart's first barrier, 2, above what it
     * restored, 0, says it never passed 1: the range keeps that gap, and a restore of a checkpoint
     * inside it repairs from state.
     */
    @Test
    void aSavepointErasedByARestartTheDatabaseForgotIsNoProofEither() throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at1;
        DatabaseCopy beforeTheSavepoint;
        try (var first = restoredAttempt(run, 0, null, 0)) {
            first.open();
            beforeTheSavepoint = copyOfTheDatabase();
            at1 = stopWithSavepoint(first, 1);
            first.notifyOfCompletedCheckpoint(1);
        } // the stop fails; no checkpoint completed: the run restarts without state
        beforeTheSavepoint.putBack();
        try (var restarted = restoredAttempt(run, 1, null, 0)) {
            restarted.open();
            upsert(restarted, "a", 10);
            completed(restarted, 2);
        } // cancelled
        try (var fromSavepoint = restoredAttempt(newRun(), 0, at1, 1)) {
            fromSavepoint.open();
            assertLiveAndCommitted(Map.of());
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
                    found -> TakeoverTerms.TAKE);
            earlier.commit(15, Progress.UNKNOWN);
        }
        try (SinkStore<K, V> later = stores().create()) {
            Takeover takeover =
                    later.takeOwnership(
                            span,
                            new Claim(AttemptId.of("d2-r3", "sink", 0, 1, 0), OptionalLong.of(10)),
                            found -> TakeoverTerms.LEAVE);
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
            assertThat(SinkHarnesses.lastFlush(upgraded).mode())
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
            assertThat(SinkHarnesses.lastFlush(restarted).mode())
                    .isEqualTo(RestoreFlush.Mode.INCREMENTAL);
            assertLiveAndCommitted(at11Totals);
        }
    }

    /**
     * The same lost notice, with a key deleted before barrier 11: its tombstone is staged for 11,
     * not committed, and the committed table still holds its value of checkpoint 10. The flush
     * reads that table for final values state no longer retains; read before the restore commits
     * 11, it took the deleted key's old value for one and set its live row back for good (found by
     * {@code IncrementalFlushPropertiesTest}; with the flush first again, both stores end live
     * {a=100, b=10}, committed {b=10}).
     */
    @Test
    void aKeyDeletedBeforeTheBarrierOfALostNoticeStaysDeleted() throws Exception {
        FlushableSink<K, V> run = newRun();
        OperatorSubtaskState at11;
        try (var first = restoredAttempt(run, 0, null, 0)) {
            first.open();
            upsert(first, "a", 100);
            upsert(first, "b", 10);
            completed(first, 10);
            delete(first, "a");
            at11 = checkpoint(first, 11); // completes; the notice is lost with the TaskManager
            upsert(first, "a", 1); // after barrier 11: tagged 11
            first.prepareSnapshotPreBarrier(12); // written; checkpoint 12 never completes
        }
        try (var restarted = restoredAttempt(run, 1, at11, 11)) {
            restarted.open();
            assertThat(SinkHarnesses.lastFlush(restarted).mode())
                    .isEqualTo(RestoreFlush.Mode.INCREMENTAL);
            assertLiveAndCommitted(Map.of(key("b"), 10L));
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
}
