package io.effonce.sink.internal;

import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a sink subtask attempt's start: takes its key-group range in one takeover
 * transaction, conditional on what the database holds ({@link StartDecision}, the table of every
 * case), then flushes, reconciles or refuses as the decision says, before the attempt writes
 * anything.
 */
final class StartProtocol<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(StartProtocol.class);

    private final SinkStore<K, V> store;
    private final QuarantiningWriter<K, V> writer;
    private final ToIntFunction<K> keyGroupOf;
    private final SinkSettings settings;
    private final SinkMetrics metrics;

    StartProtocol(
            SinkStore<K, V> store,
            QuarantiningWriter<K, V> writer,
            ToIntFunction<K> keyGroupOf,
            SinkSettings settings,
            SinkMetrics metrics) {
        this.store = store;
        this.writer = writer;
        this.keyGroupOf = keyGroupOf;
        this.settings = settings;
        this.metrics = metrics;
    }

    /**
     * Takes {@code span} for {@code claim} or refuses, and does what the decision says, before the
     * attempt writes anything. Throws {@link StaleAttemptException} or {@link
     * IllegalStateException} when refused; then nothing was written. Returns false when the claim
     * must be made again at the attempt's first barrier (row 3b): nothing was written either.
     */
    boolean start(
            KeyGroupSpan span,
            Claim claim,
            RestoredState<K, V> state,
            Optional<String> checkpointsDir) {
        // Decided once, on what the takeover transaction read: the plan the range was taken for.
        AtomicReference<StartPlan> decided = new AtomicReference<>();
        Takeover takeover =
                store.takeOwnership(
                        span,
                        claim,
                        found -> {
                            StartPlan plan = StartPlan.of(claim, found, settings.startRules());
                            decided.set(plan);
                            return plan.terms();
                        });
        RangeRecord found = takeover.found();
        StartPlan plan = decided.get();
        logStart(claim, plan, span, found, takeover);
        // Java 17 has no switch over a sealed type: one branch per case, in the table's order.
        if (plan instanceof StartPlan.AwaitFirstBarrier) {
            LOG.warn(StartRefusals.awaitingFirstBarrier(span, claim, store.tableName()));
            return false;
        } else if (plan instanceof StartPlan.Refuse refuse) {
            throw refusal(refuse.why(), span, claim, found, checkpointsDir);
        } else if (plan instanceof StartPlan.Restore restore) {
            restore(span, claim, restore, state);
        } else if (plan instanceof StartPlan.FlushErasedRun) {
            flushErasedRun(claim, state);
        } else if (plan instanceof StartPlan.Reset) {
            LOG.warn(
                    "Fresh start with reset: deleted {} rows of {} in {}",
                    store.deleteAll(),
                    store.tableName(),
                    span);
        } else if (plan instanceof StartPlan.Begin) {
            // No row in the range, but perhaps an earlier run's progress, acknowledged savepoints
            // and deletions: they speak of totals this run has not counted.
            store.deleteAll();
        } else {
            throw new IllegalStateException("No start for " + plan);
        }
        return true;
    }

    /**
     * Releases the range's lease as the attempt closes (row 5a). A task cannot tell a cancel from a
     * failover's cancel, so a failing attempt releases too: its restart takes the range again.
     */
    void releaseLease(Claim claim) {
        try {
            store.releaseLease();
        } catch (RuntimeException e) {
            LOG.warn(
                    "{}: could not release its range ({}); it is held until {} runs out",
                    claim.task(),
                    e.getMessage(),
                    FlushableSinkOptions.OWNER_LEASE.key());
        }
    }

    private RuntimeException refusal(
            StartDecision why,
            KeyGroupSpan span,
            Claim claim,
            RangeRecord found,
            Optional<String> checkpointsDir) {
        return switch (why) {
            case REFUSE_RESCALE_IN_RUN ->
                    StartRefusals.rescaledInRun(span, claim, store.tableName());
            case REFUSE_FRESH_START ->
                    StartRefusals.freshStart(span, found, checkpointsDir, store.tableName());
            case REFUSE_RANGE_HELD ->
                    StartRefusals.rangeHeld(
                            span, claim, found, settings.startRules(), store.tableName());
            default -> StartRefusals.stale(span, claim, found, store.tableName());
        };
    }

    private void logStart(
            Claim claim, StartPlan plan, KeyGroupSpan span, RangeRecord found, Takeover t) {
        LOG.info(
                "{}: {} of {} ({}); the range held owners {}, committed checkpoint {};"
                        + " restored checkpoint {}; fencing token {}",
                claim.task(),
                plan,
                span,
                store.tableName(),
                found.owners(),
                found.lastCommitted(),
                claim.restoredCheckpoint(),
                t.token());
    }

    /**
     * Row 4: what the plan says, in its order: staged values outside the lineage go; the flush from
     * the restored checkpoint; the committed table reconciled to it, before the flush unless the
     * flush restages (then a lost notice is caught up first without a commit, so that the flush
     * reads committed values of the checkpoint and a cut leaves no proof behind).
     */
    private void restore(
            KeyGroupSpan span, Claim claim, StartPlan.Restore plan, RestoredState<K, V> state) {
        long c = plan.checkpoint();
        store.discardStaged(plan.discard());
        logRestore(span, claim, plan);
        if (plan.commitsAfterTheFlush()) {
            store.promoteStaged(c);
            metrics.flushed(flush(plan.flush(), state));
            reconcileCommitted(c, state, plan.repair());
        } else {
            reconcileCommitted(c, state, false);
            metrics.flushed(flush(plan.flush(), state));
        }
    }

    private void logRestore(KeyGroupSpan span, Claim claim, StartPlan.Restore plan) {
        long c = plan.checkpoint();
        if (plan.savepointBranchErasedAt().isPresent()) {
            LOG.warn(
                    "{}: restoring savepoint {}, whose branch its run erased by restoring checkpoint"
                            + " {} afterwards (a stop-with-savepoint that failed once the savepoint"
                            + " completed, or a deployment from an older checkpoint); what that run"
                            + " wrote from there on is another branch's: {} is repaired from state",
                    claim.task(),
                    c,
                    plan.savepointBranchErasedAt().getAsLong(),
                    span);
        } else if (plan.flush().forkFrom() < c) {
            LOG.warn(
                    "{}: the database holds the progress of runs whose lineages part from this"
                            + " one ({}) at checkpoint {}; every row of {} tagged from there that"
                            + " state does not hold is theirs, and goes",
                    claim.task(),
                    claim.lineage(),
                    plan.flush().forkFrom(),
                    span);
        }
        if (plan.reason() == StartPlan.FullFlushReason.UNPROVEN
                || plan.reason() == StartPlan.FullFlushReason.DELETED_SINCE) {
            LOG.warn(
                    "Full flush of {} in {}: restoring checkpoint {}, {}; every key of restored"
                            + " state is set again",
                    store.tableName(),
                    span,
                    c,
                    plan.reason().why());
        }
    }

    /**
     * Row 5: everything in the range is the erased run's (it completed no checkpoint), or left by a
     * reset of this run that was cut before it deleted: a flush from "checkpoint 0" with empty
     * state removes the live rows, and the reset, done again, the rest.
     */
    private void flushErasedRun(Claim claim, RestoredState<K, V> state) {
        metrics.flushed(flush(StartPlan.FlushPlan.ofErasedRun(), state));
        long left = store.deleteAll();
        LOG.info(
                "{}: the erased run's start is done again; {} rows were left in the live"
                        + " table, its staged and committed values and progress are gone",
                claim.task(),
                left);
    }

    private FlushReport flush(StartPlan.FlushPlan plan, RestoredState<K, V> state) {
        return new RestoreFlush<>(
                        store, store, store.tableName(), writer, keyGroupOf, settings.batchSize())
                .run(plan, state);
    }

    /**
     * After a restore from {@code checkpointId}: what the erased run staged later goes; what was
     * staged up to it is committed (its notification may never have come); and a committed value
     * from a later checkpoint — only after an operator restored an older savepoint — is rolled back
     * to restored state, or removed where state holds no value.
     */
    private void reconcileCommitted(
            long checkpointId, RestoredState<K, V> state, boolean repaired) {
        store.discardStaged(StagedDiscard.after(checkpointId));
        store.recordRestore(checkpointId, repaired);
        metrics.committed(
                checkpointId, store.commit(checkpointId, Progress.UNKNOWN), Progress.UNKNOWN);
        List<StoredRow<K, V>> set = new ArrayList<>();
        List<K> remove = new ArrayList<>();
        for (K key : store.keysCommittedAfter(checkpointId)) {
            V value = state.valueOf(key);
            if (value == null) {
                remove.add(key);
            } else {
                set.add(new StoredRow<>(key, value, keyGroupOf.applyAsInt(key), checkpointId));
            }
        }
        store.rollBackCommitted(set, remove);
        if (!set.isEmpty() || !remove.isEmpty()) {
            LOG.warn(
                    "Rolled the committed values of {} keys back to checkpoint {} and removed {}:"
                            + " an older checkpoint or savepoint was restored",
                    set.size(),
                    checkpointId,
                    remove.size());
        }
    }
}
