package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.subtaskOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.testutils.SinkHarnesses;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;

/**
 * A second deployment of the same sink started without state while the first runs (issue 73's
 * history 6; row 5a of {@link StartDecision}), run by every store. The running job writes at two
 * subtasks, one of whose ranges holds no row yet: the second deployment's subtask over it would
 * find nothing to refuse it for but the running run's lease.
 */
abstract class SecondDeploymentContract<K, V> extends StoreHistories<K, V> {

    /** A key name that subtask {@code subtask} of two owns. */
    private String nameOn(int subtask) {
        return IntStream.range(0, 100)
                .mapToObj(i -> "k" + i)
                .filter(n -> subtaskOf(key(n), 2) == subtask)
                .findFirst()
                .orElseThrow();
    }

    private KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> opened(
            FlushableSink<K, V> run, int subtask) throws Exception {
        var h = SinkHarnesses.attempt(run, store().keyType(), JOB, 2, subtask, 0);
        h.initializeEmptyState();
        h.open();
        return h;
    }

    private KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> fresh(
            FlushableSink<K, V> run, int subtask) throws Exception {
        var h = SinkHarnesses.attempt(run, store().keyType(), JOB, 2, subtask, 0);
        h.initializeEmptyState();
        return h;
    }

    @Test
    void aSecondDeploymentWithoutStateWhileTheFirstRunsIsRefusedAndChangesNothing()
            throws Exception {
        FlushableSink<K, V> running = newRun();
        try (var first0 = opened(running, 0);
                var first1 = opened(running, 1)) {
            upsert(first0, nameOn(0), 100); // subtask 1's range stays empty
            completed(first0, 1);
            completed(first1, 1);
            String before = dump();

            FlushableSink<K, V> mistake = newRun();
            try (var second0 = fresh(mistake, 0);
                    var second1 = fresh(mistake, 1)) {
                assertThatThrownBy(second0::open).hasMessageContaining("Refusing a fresh start");
                assertThatThrownBy(second1::open)
                        .hasMessageContaining("Refusing a start without state")
                        .hasMessageContaining("has not closed")
                        .hasMessageContaining("sink.owner-lease");
            }
            assertThat(dump()).as("the refused deployment changed nothing").isEqualTo(before);

            upsert(first1, nameOn(1), 7);
            completed(first0, 2);
            completed(first1, 2);
            assertLiveAndCommitted(Map.of(key(nameOn(0)), 100L, key(nameOn(1)), 7L));
        }
    }

    /**
     * The counterfactual: without a lease the mistaken deployment takes the empty range and marks
     * the running run superseded; the running subtask's next write is fenced, and its restart is
     * refused as an attempt of an older deployment, for good.
     */
    @Test
    void withoutTheLeaseTheMistakeTakesTheEmptyRangeAndTheRunningJobIsRefusedForGood()
            throws Exception {
        FlushableSink<K, V> running = newRun();
        OperatorSubtaskState first0At1;
        OperatorSubtaskState first1At1;
        try (var first0 = opened(running, 0);
                var first1 = opened(running, 1)) {
            upsert(first0, nameOn(0), 100);
            first0At1 = completed(first0, 1);
            first1At1 = completed(first1, 1);

            FlushableSink<K, V> mistake =
                    FlushableSink.<K, V>builder()
                            .store(stores())
                            .valueType(valueType())
                            .ownerLease(Duration.ZERO)
                            .build();
            try (var second1 = fresh(mistake, 1)) {
                second1.open();
            }
            upsert(first1, nameOn(1), 7);
            assertThatThrownBy(() -> completed(first1, 2))
                    .satisfies(
                            e ->
                                    assertThat(
                                                    ExceptionUtils.findThrowable(
                                                            e, FencedException.class))
                                            .as("fenced")
                                            .isPresent());
        }
        var restart = SinkHarnesses.attempt(running, store().keyType(), JOB, 2, 1, 1);
        try (restart) {
            restart.setRestoredCheckpointId(1);
            restart.initializeState(first1At1);
            assertThatThrownBy(restart::open)
                    .isInstanceOf(StaleAttemptException.class)
                    .hasMessageContaining("later deployment")
                    .hasMessageContaining(
                            "submit this job again from its newest retained checkpoint");
        }
        // The way out the refusal names: the job submitted again from its checkpoint restores.
        FlushableSink<K, V> resubmitted = newRun();
        try (var again0 = restoredAt(resubmitted, 0, first0At1, 1);
                var again1 = restoredAt(resubmitted, 1, first1At1, 1)) {
            again0.open();
            again1.open();
            completed(again0, 2);
            completed(again1, 2);
        }
        assertLiveAndCommitted(Map.of(key(nameOn(0)), 100L));
    }

    private KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> restoredAt(
            FlushableSink<K, V> run, int subtask, OperatorSubtaskState state, long checkpoint)
            throws Exception {
        var h = SinkHarnesses.attempt(run, store().keyType(), JOB, 2, subtask, 0);
        h.setRestoredCheckpointId(checkpoint);
        h.initializeState(state);
        return h;
    }

    @Test
    void aCancelledRunReleasesItsRangesSoAStartWithoutStateBeginsAtOnce() throws Exception {
        FlushableSink<K, V> cancelled = newRun();
        try (var first0 = opened(cancelled, 0);
                var first1 = opened(cancelled, 1)) {
            completed(first0, 1);
            completed(first1, 1);
        } // closed: cancelled before it wrote a row

        FlushableSink<K, V> resubmitted = newRun();
        try (var again0 = opened(resubmitted, 0);
                var again1 = opened(resubmitted, 1)) {
            upsert(again1, nameOn(1), 5);
            completed(again0, 1);
            completed(again1, 1);
        }
        assertLiveAndCommitted(Map.of(key(nameOn(1)), 5L));
    }

    @Test
    void aRunThatDiedWithoutClosingHoldsItsRangeUntilTheLeaseRunsOut() throws Exception {
        FlushableSink<K, V> died = newRun();
        var gone = opened(died, 1);
        try {
            completed(gone, 1); // its process dies here: no close

            FlushableSink<K, V> next = newRun();
            try (var tooSoon = fresh(next, 1)) {
                assertThatThrownBy(tooSoon::open).hasMessageContaining("has not closed");
            }
            store().ageLeases(Duration.ofMinutes(11)); // the default lease is 10 minutes
            try (var later = fresh(next, 1)) {
                later.open();
                upsert(later, nameOn(1), 9);
                completed(later, 1);
            }
            assertLiveAndCommitted(Map.of(key(nameOn(1)), 9L));
        } finally {
            gone.close();
        }
    }

    /**
     * Row 1c asks every claim whether a later deployment owns key groups of the table, but only
     * below the claimant's maximum parallelism: a mistaken deployment with a larger one owns key
     * groups the running job never has, and must not lock its restores out (found by review,
     * 2026-12-07); below it, the same owner makes the earlier deployment's restore stale.
     */
    @Test
    void aLaterDeploymentOwningKeyGroupsBeyondTheJobsMaximumParallelismDoesNotLockItOut()
            throws Exception {
        String running = "job/" + DeploymentOrder.runId(1, UUID.randomUUID());
        String mistake = "job/" + DeploymentOrder.runId(2, UUID.randomUUID());
        try (SinkStore<K, V> beyond = stores().create()) {
            beyond.takeOwnership(
                    new KeyGroupSpan(128, 255),
                    new Claim(
                            AttemptId.of(mistake, "sink 2/2", 1, 2, 0),
                            256,
                            OptionalLong.empty(),
                            OptionalLong.empty(),
                            RunLineage.UNKNOWN),
                    found -> TakeoverTerms.TAKE);
        }
        Claim restore =
                new Claim(
                        AttemptId.of(running, "sink 1/1", 0, 1, 3),
                        128,
                        OptionalLong.of(7),
                        OptionalLong.empty(),
                        RunLineage.UNKNOWN);
        try (SinkStore<K, V> store = stores().create()) {
            RangeRecord found =
                    store.takeOwnership(new KeyGroupSpan(0, 127), restore, f -> TakeoverTerms.LEAVE)
                            .found();
            assertThat(found.laterDeployment()).isEmpty();
            assertThat(StartDecision.staleness(restore, found)).isEmpty();
        }
        Claim wider =
                new Claim(
                        restore.id(),
                        256,
                        restore.restoredCheckpoint(),
                        restore.firstBarrier(),
                        restore.restoredLineage());
        try (SinkStore<K, V> store = stores().create()) {
            RangeRecord found =
                    store.takeOwnership(new KeyGroupSpan(0, 127), wider, f -> TakeoverTerms.LEAVE)
                            .found();
            assertThat(found.laterDeployment()).contains(mistake);
            assertThat(StartDecision.staleness(wider, found).orElseThrow().row()).isEqualTo("1c");
        }
    }
}
