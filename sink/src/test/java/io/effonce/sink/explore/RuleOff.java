package io.effonce.sink.explore;

import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StagedDiscard;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.testutils.DelegatingStore;
import io.effonce.sink.testutils.IgnoringDeletes;
import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A rule of the sink switched off on the test side, at the store or in the takeover: the walk over
 * every history up to the bound must find a history it makes wrong.
 */
enum RuleOff {
    /** The start protocol: the last attempt to ask takes the range, as before it. */
    TAKEOVER_PREDICATE(Duration.ofHours(1), 3, null, 1),
    /**
     * The owner's lease (row 5a): a second deployment by mistake takes the range of the subtask
     * that wrote nothing yet, in the two-subtask world, at its first step.
     */
    OWNER_LEASE(
            Duration.ofHours(1),
            1,
            store -> new ForgettingTakeover(store, f -> FoundRanges.with(f, f.owners(), Map.of())),
            2),
    /** Deletes reach the live table: the job's, and the flush's of keys restored state lacks. */
    FLUSH_DELETES(Duration.ofHours(1), 3, IgnoringDeletes::new, 1),
    /**
     * The flush finds the erased run's writes by their tag: the keys tagged since the restored
     * checkpoint are set back to state or deleted.
     */
    ERASED_WRITES_FOUND(Duration.ofHours(1), 3, NotFindingTaggedKeys::new, 1),
    /** What the erased run staged after the restored checkpoint is discarded. */
    DISCARD_STAGED(Duration.ofHours(1), 3, KeepingStaged::new, 1),
    /** The committed table goes back to the restored checkpoint's values. */
    COMMITTED_ROLLBACK(Duration.ofHours(1), 3, NotRollingBackCommitted::new, 1),
    /**
     * A repair first moves what was staged through the restored checkpoint into committed: found in
     * five steps (issue 73's first history: a delete before a lost notice, the first restore cut
     * after its takeover), in the soak run.
     */
    PROMOTE_STAGED(Duration.ZERO, 5, NotPromoting::new, 1),
    /**
     * A deletion leaves a record ({@code sink_live_deletes}), and a restore at or before it flushes
     * in full: without it the incremental flush finds no row for a key deleted after the barrier.
     */
    DELETION_RECORD(
            Duration.ofHours(1),
            3,
            store -> new ForgettingTakeover(store, FoundRanges::withoutDeletions),
            1);

    private final Duration retention;
    private final int bound;
    private final DelegatingStore.Decoration<String, Long> decoration;
    private final int parallelism;

    RuleOff(
            Duration retention,
            int bound,
            DelegatingStore.Decoration<String, Long> decoration,
            int parallelism) {
        this.retention = retention;
        this.bound = bound;
        this.decoration = decoration;
        this.parallelism = parallelism;
    }

    /** The bound within which the walk finds the rule's counterexample. */
    int bound() {
        return bound;
    }

    /** The world the rule's counterexample is looked for in. */
    World world() {
        return World.of(parallelism, retention);
    }

    /** The explorer of one history over {@code store}, with every rule on: the reference. */
    TakeoverExplorer<String, Long> explorerWithEveryRuleOn(InMemoryStoreUnderTest store) {
        return new TakeoverExplorer<>(store, false, false, retention);
    }

    /** The explorer of one history over {@code store}, with the rule off. */
    TakeoverExplorer<String, Long> explorer(InMemoryStoreUnderTest store) {
        TakeoverExplorer<String, Long> explorer =
                new TakeoverExplorer<>(store, decoration == null, false, retention);
        return decoration == null ? explorer : explorer.withRuleOff(decoration);
    }

    private static final class KeepingStaged extends DelegatingStore<String, Long> {
        KeepingStaged(SinkStore<String, Long> store) {
            super(store);
        }

        @Override
        public void discardStaged(StagedDiscard discard) {
            // the rule off: the erased run's staged rows stay, for a later commit to publish
        }
    }

    private static final class NotRollingBackCommitted extends DelegatingStore<String, Long> {
        NotRollingBackCommitted(SinkStore<String, Long> store) {
            super(store);
        }

        @Override
        public void rollBackCommitted(
                List<StoredRow<String, Long>> set, Collection<String> remove) {
            // the rule off: what the erased run committed stays committed
        }
    }

    private static final class NotFindingTaggedKeys extends DelegatingStore<String, Long> {
        NotFindingTaggedKeys(SinkStore<String, Long> store) {
            super(store);
        }

        @Override
        public List<String> keysTaggedSince(long tag) {
            return List.of(); // the rule off: the flush sees no row the erased run wrote
        }
    }

    private static final class NotPromoting extends DelegatingStore<String, Long> {
        NotPromoting(SinkStore<String, Long> store) {
            super(store);
        }

        @Override
        public int promoteStaged(long checkpointId) {
            return 0; // the rule off: a repair reads committed without what was staged through c
        }
    }
}
