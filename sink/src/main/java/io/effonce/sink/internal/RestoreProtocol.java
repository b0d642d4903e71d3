package io.effonce.sink.internal;

import io.effonce.sink.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a sink subtask attempt's start: takes its key-group range in one takeover
 * transaction, conditional on what the database holds ({@link StartDecision}, the table of every
 * case), then flushes, reconciles or refuses as the decision says, before the attempt writes
 * anything.
 */
final class RestoreProtocol<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreProtocol.class);

    private final SinkStore<K, V> store;
    private final QuarantiningWriter<K, V> writer;
    private final ToIntFunction<K> keyGroupOf;
    private final SinkSettings settings;
    private final SinkMetrics metrics;

    RestoreProtocol(
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
        boolean reset = settings.resetOnFreshStart();
        Takeover takeover =
                store.takeOwnership(
                        span,
                        claim,
                        found -> StartDecision.decide(claim, found, reset).takesRange());
        RangeRecord found = takeover.found();
        StartDecision start = StartDecision.decide(claim, found, reset);
        logStart(claim, start, span, found, takeover);
        switch (start) {
            case AWAIT_FIRST_BARRIER -> {
                LOG.warn(StartRefusals.awaitingFirstBarrier(span, claim, store.tableName()));
                return false;
            }
            case REFUSE_STALE -> throw StartRefusals.stale(span, claim, found, store.tableName());
            case REFUSE_RESCALE_IN_RUN ->
                    throw StartRefusals.rescaledInRun(span, claim, store.tableName());
            case REFUSE_FRESH_START ->
                    throw StartRefusals.freshStart(span, found, checkpointsDir, store.tableName());
            case FLUSH_RESTORED -> flushRestored(span, claim, found, state);
            case FLUSH_ERASED_RUN -> flushErasedRun(claim, state);
            case RESET ->
                    LOG.warn(
                            "Fresh start with reset: deleted {} rows of {} in {}",
                            store.deleteAll(),
                            store.tableName(),
                            span);
            case BEGIN ->
                    // No row in the range, but perhaps an earlier run's progress, acknowledged
                    // savepoints and deletions: they speak of totals this run has not counted.
                    store.deleteAll();
        }
        return true;
    }

    private void logStart(
            Claim claim, StartDecision start, KeyGroupSpan span, RangeRecord found, Takeover t) {
        LOG.info(
                "{}: {} of {} ({}); the range held owners {}, committed checkpoint {};"
                        + " restored checkpoint {}; fencing token {}",
                claim.task(),
                start,
                span,
                store.tableName(),
                found.owners(),
                found.lastCommitted(),
                claim.restoredCheckpoint(),
                t.token());
    }

    /**
     * Row 4: flushes the range from restored checkpoint {@code c}, repairing it from state where
     * the database lacks the proof that it holds every write before barrier {@code c} or holds
     * another lineage's writes, and reconciles the committed table to {@code c}.
     */
    private void flushRestored(
            KeyGroupSpan span, Claim claim, RangeRecord found, RestoredState<K, V> state) {
        long c = claim.restoredCheckpoint().getAsLong();
        // Unproven, the committed table may lack what was committed before barrier c too (lost
        // with the database's writes, or another branch's): rewritten from state. So is it when
        // a key was deleted after barrier c and a later checkpoint committed the deletion,
        // leaving no row for the roll-back to find. (flushMode is then FULL.)
        OptionalLong erasedAt = found.savepointBranchErasedAt();
        boolean lacksCommit = !found.provesWritesBefore(c);
        boolean restage = lacksCommit || (found.deletedSince(c) && found.lastCommitted() > c);
        long outsideFrom = lacksCommit ? outsideTheLineageFrom(c, found) : c;
        // The database holds the progress of a run of another lineage (a copy from before
        // a rollback, or from an abandoned branch): it wrote after the fork, and nothing in
        // the tables says which rows.
        long forkFrom = lacksCommit ? Math.min(forkFrom(claim, found, c), erasedAt.orElse(c)) : c;
        if (Math.min(outsideFrom, forkFrom) < c) {
            // What an attempt outside c's lineage staged goes too (it never completed a
            // checkpoint); the flush stages every key of state at c again.
            store.discardStagedAfter(Math.min(outsideFrom, forkFrom));
        }
        if (erasedAt.isPresent()) {
            LOG.warn(
                    "{}: restoring savepoint {}, whose branch its run erased by restoring checkpoint"
                            + " {} afterwards (a stop-with-savepoint that failed once the savepoint"
                            + " completed, or a deployment from an older checkpoint); what that run"
                            + " wrote from there on is another branch's: {} is repaired from state",
                    claim.task(),
                    c,
                    erasedAt.getAsLong(),
                    span);
        } else if (forkFrom < c) {
            LOG.warn(
                    "{}: the database holds the progress of runs whose lineages {} part"
                            + " from this one ({}) at checkpoint {}; every row of {} tagged"
                            + " from there that state does not hold is theirs, and goes",
                    claim.task(),
                    found.committedLineages(),
                    claim.lineage(),
                    forkFrom,
                    span);
        }
        RestoreFlush.Mode mode = flushMode(c, found, span);
        if (restage) {
            metrics.flushed(flush(c, state, mode, true, outsideFrom, forkFrom));
            reconcileCommitted(c, state, lacksCommit);
        } else {
            // The committed table at c first: the flush reads it for final values state no longer
            // retains, and with c's notice lost it still lacks what was staged for c (a key
            // deleted before barrier c would come back to live from its older committed value).
            reconcileCommitted(c, state, false);
            metrics.flushed(flush(c, state, mode, false, outsideFrom, forkFrom));
        }
    }

    /**
     * Row 5: everything in the range is the erased run's (it completed no checkpoint), or left by a
     * reset of this run that was cut before it deleted: a flush from "checkpoint 0" with empty
     * state removes the live rows, and the reset, done again, the rest.
     */
    private void flushErasedRun(Claim claim, RestoredState<K, V> state) {
        metrics.flushed(flush(0L, state, RestoreFlush.Mode.INCREMENTAL, false, 0L, 0L));
        long left = store.deleteAll();
        LOG.info(
                "{}: the erased run's start is done again; {} rows were left in the live"
                        + " table, its staged and committed values and progress are gone",
                claim.task(),
                left);
    }

    /**
     * Incremental when the range proves every write before barrier {@code c} durable and of this
     * branch ({@link RangeRecord#provesWritesBefore}): the table then holds them (see {@link
     * RestoreFlush}). A lost completion notice therefore costs no full flush: the barrier's record
     * is written before the checkpoint can complete. Full when the range proves less (the table is
     * new to the job, the database lost acknowledged writes, a savepoint's branch was erased, a
     * repair is newer), or when a live row was deleted after the barrier: a deletion leaves no tag.
     */
    private RestoreFlush.Mode flushMode(long c, RangeRecord found, KeyGroupSpan span) {
        if (settings.alwaysFullFlush()) {
            return RestoreFlush.Mode.FULL;
        }
        if (!found.provesWritesBefore(c)) {
            LOG.warn(
                    "Full flush of {} in {}: restoring checkpoint {}, but the range proves its"
                            + " writes durable only through checkpoint {} (0: a key group never"
                            + " committed, nor recorded a barrier since its start), its newest"
                            + " repair is of checkpoint {}, its savepoint's branch erased: {}. The"
                            + " table may lack writes acknowledged before that checkpoint (a new"
                            + " table, a database that lost writes) or hold another branch's, so"
                            + " every key of restored state is set again, in the live and the"
                            + " committed table.",
                    store.tableName(),
                    span,
                    c,
                    found.durableThrough(),
                    found.newestRepair(),
                    found.savepointBranchErasedAt().isPresent());
            return RestoreFlush.Mode.FULL;
        }
        if (found.deletedSince(c)) {
            LOG.info(
                    "Full flush of {} in {}: restoring checkpoint {}, and live rows of the range"
                            + " were deleted under barrier tag {}, after it; a deleted row leaves"
                            + " no tag, so every key of restored state is set again",
                    store.tableName(),
                    span,
                    c,
                    found.newestDeletion());
            return RestoreFlush.Mode.FULL;
        }
        return RestoreFlush.Mode.INCREMENTAL;
    }

    /**
     * The oldest checkpoint from which a run whose commit the range holds wrote outside the claim's
     * lineage; {@code c} when none did (or the lineages are not known).
     */
    private static long forkFrom(Claim claim, RangeRecord found, long c) {
        long from = c;
        for (RunLineage other : found.committedLineages()) {
            from = Math.min(from, claim.lineage().forkFrom(other).orElse(c));
        }
        return from;
    }

    /**
     * The oldest checkpoint restored by an owner of the range that never passed barrier {@code c}
     * ({@code c} if none): such an owner is outside {@code c}'s lineage. Checkpoint {@code c}
     * completed, so the range's owner then passed its barrier, and every later owner restored
     * {@code c} or a later checkpoint; only a database that went back in time, forgetting the
     * fence, lets an older attempt take the range after that.
     */
    private static long outsideTheLineageFrom(long c, RangeRecord found) {
        long from = c;
        for (RangeOwner owner : found.owners()) {
            if (owner.lastBarrier() < c && owner.restoredCheckpoint() >= 0) {
                from = Math.min(from, owner.restoredCheckpoint());
            }
        }
        return from;
    }

    private FlushReport flush(
            long checkpointId,
            RestoredState<K, V> state,
            RestoreFlush.Mode mode,
            boolean restage,
            long suspectFrom,
            long forkFrom) {
        return new RestoreFlush<>(
                        store,
                        store,
                        store.tableName(),
                        writer,
                        keyGroupOf,
                        settings.batchSize(),
                        settings.deleteStaleOnFlush())
                .run(checkpointId, state, mode, restage, suspectFrom, forkFrom);
    }

    /**
     * After a restore from {@code checkpointId}: what the erased run staged later goes; what was
     * staged up to it is committed (its notification may never have come); and a committed value
     * from a later checkpoint — only after an operator restored an older savepoint — is rolled back
     * to restored state, or removed where state holds no value.
     */
    private void reconcileCommitted(
            long checkpointId, RestoredState<K, V> state, boolean repaired) {
        store.discardStagedAfter(checkpointId);
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
