package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.RestoreFlushPolicy;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.testutils.GatedStore;
import io.effonce.sink.testutils.PauseGate;
import io.effonce.sink.testutils.StoreUnderTest.DatabaseCopy;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.junit.jupiter.api.Test;

/**
 * The start protocol's cases, run by every store: the in-memory store earns its place in fast tests
 * only because these pass against it and against PostgreSQL alike. Histories across runs and
 * branches (savepoints, rollbacks, deployments from older snapshots) are {@link
 * RestoreProofContract}'s.
 *
 * <p>A pause is an attempt that restored ({@code initializeState}) and has not yet asked for its
 * range ({@code open}): it asks later, after a newer attempt ran. The figures are the ones the
 * stale-attempt trace was found with: a key retired between checkpoints 11 and 12 at 200, that a
 * stale flush from 10 would put back to 100 for good.
 */
abstract class StartProtocolContract<K, V> extends StoreHistories<K, V> {

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
        store().ageLeases(Duration.ofMinutes(11)); // the erased run is gone: its lease runs out

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
