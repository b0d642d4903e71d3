package io.effonce.sink.internal;

import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.store.Claim;
import io.effonce.sink.store.KeyGroupSpan;
import io.effonce.sink.store.Progress;
import io.effonce.sink.store.RangeOwner;
import io.effonce.sink.store.RangeRecord;
import io.effonce.sink.store.StaleAttemptException;
import io.effonce.sink.store.StoredRow;
import io.effonce.sink.store.Takeover;
import io.effonce.sink.store.TotalsStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a sink subtask attempt starts: one decision, taken on what the database holds for its
 * key-group range, read inside the takeover transaction. Start and restore are one path; every case
 * is a row of this table, tried top to bottom.
 *
 * <table>
 *   <caption>The start decision</caption>
 *   <tr><th>#</th><th>what the takeover reads</th><th>start</th><th>what it does</th></tr>
 *   <tr><td>1</td><td>a later deployment took over from the claimant's run</td>
 *       <td>{@link Start#REFUSE_STALE}</td><td>nothing: fence, live, committed, progress as found</td></tr>
 *   <tr><td>2</td><td>the claimant's run committed a checkpoint in the range newer than the one the
 *       claimant restored (0 without state): Flink restores only the latest completed checkpoint,
 *       so a newer attempt ran since</td><td>{@link Start#REFUSE_STALE}</td><td>nothing</td></tr>
 *   <tr><td>3</td><td>an owner of the claimant's run restored a newer checkpoint, or it is a later
 *       attempt of the same subtask that restored the same one</td>
 *       <td>{@link Start#REFUSE_STALE}</td><td>nothing</td></tr>
 *   <tr><td>4</td><td>the claimant restored checkpoint {@code c} (a task restart, a failover, a
 *       rescale, or a deployment from a savepoint: an older one rolls back)</td>
 *       <td>{@link Start#FLUSH_RESTORED}</td><td>take; flush from {@code c} (incremental when
 *       every key group committed {@code c} or later, else full); committed reconciled to {@code
 *       c}</td></tr>
 *   <tr><td>5</td><td>no state; the claimant's run owns the range (a restart before its first
 *       checkpoint)</td><td>{@link Start#FLUSH_ERASED_RUN}</td><td>take; flush from "checkpoint 0"
 *       with empty state: what the erased run wrote goes</td></tr>
 *   <tr><td>6</td><td>no state; the range holds no row</td><td>{@link Start#BEGIN}</td>
 *       <td>take</td></tr>
 *   <tr><td>7</td><td>no state; other runs' rows; {@code sink.reset-on-fresh-start}</td>
 *       <td>{@link Start#RESET}</td><td>take; delete the range's rows, staged, committed,
 *       progress</td></tr>
 *   <tr><td>8</td><td>no state; other runs' rows</td><td>{@link Start#REFUSE_FRESH_START}</td>
 *       <td>nothing; the message names where to restore from</td></tr>
 * </table>
 *
 * <p>Rows 1–3 are the seed's rule that a takeover is conditional on the durable record (Part 3): a
 * paused attempt that wakes up after the job moved on must not take the range back and flush it to
 * an older checkpoint, which would roll totals back for good (a key retired since keeps the older
 * value, its row no later flush looks at). Attempt numbers only order attempts of one subtask at
 * one parallelism, so a rescale within a run could not be ordered: the operator refuses the
 * adaptive scheduler, and a rescale is a new run restored from a savepoint. A takeover that is
 * refused writes nothing, so Flink's restart of a refused task meets the same record and is refused
 * the same way.
 */
final class RestoreProtocol<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreProtocol.class);

    /** The rows of the table above. */
    enum Start {
        REFUSE_STALE,
        REFUSE_FRESH_START,
        FLUSH_RESTORED,
        FLUSH_ERASED_RUN,
        BEGIN,
        RESET;

        boolean takesRange() {
            return this != REFUSE_STALE && this != REFUSE_FRESH_START;
        }
    }

    private final TotalsStore<K, V> store;
    private final QuarantiningWriter<K, V> writer;
    private final ToIntFunction<K> keyGroupOf;
    private final SinkSettings settings;
    private final SinkMetrics metrics;

    RestoreProtocol(
            TotalsStore<K, V> store,
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

    /** The decision for {@code claim} on what the takeover read: the table above. */
    static Start decide(Claim claim, RangeRecord found, boolean resetOnFreshStart) {
        if (staleness(claim, found).isPresent()) {
            return Start.REFUSE_STALE;
        }
        if (claim.restoredCheckpoint().isPresent()) {
            return Start.FLUSH_RESTORED;
        }
        if (found.ownerRuns().contains(claim.run())) {
            return Start.FLUSH_ERASED_RUN;
        }
        if (!found.hasRows()) {
            return Start.BEGIN;
        }
        return resetOnFreshStart ? Start.RESET : Start.REFUSE_FRESH_START;
    }

    /** Why {@code claim} is older than what the range holds (rows 1–3), or empty. */
    static Optional<String> staleness(Claim claim, RangeRecord found) {
        if (found.claimantRunSuperseded()) {
            return Optional.of(
                    "a later deployment of the job took the sink's key groups over from run "
                            + claim.run());
        }
        long restored = claim.restoredOrZero();
        if (found.committedByClaimantRun() > restored) {
            return Optional.of(
                    "its run already committed checkpoint "
                            + found.committedByClaimantRun()
                            + " in this range, after the checkpoint it restored ("
                            + restored
                            + "), so a newer attempt has run since");
        }
        for (RangeOwner owner : found.owners()) {
            if (!owner.run().equals(claim.run())) {
                continue;
            }
            if (owner.restoredCheckpoint() > restored
                    || (owner.restoredCheckpoint() == restored
                            && owner.sameSubtaskAs(claim)
                            && owner.attempt() > claim.attempt())) {
                return Optional.of(
                        owner.task()
                                + " (restored checkpoint "
                                + owner.restoredCheckpoint()
                                + ") owns the range: it is newer than this attempt (restored "
                                + restored
                                + ")");
            }
        }
        return Optional.empty();
    }

    /**
     * Takes {@code span} for {@code claim} or refuses, and does what the decision says, before the
     * attempt writes anything. Throws {@link StaleAttemptException} or {@link
     * IllegalStateException} when refused; then nothing was written.
     */
    void start(
            KeyGroupSpan span,
            Claim claim,
            RestoredState<K, V> state,
            Optional<String> checkpointsDir) {
        boolean reset = settings.resetOnFreshStart();
        Takeover takeover =
                store.takeOwnership(span, claim, found -> decide(claim, found, reset).takesRange());
        RangeRecord found = takeover.found();
        Start start = decide(claim, found, reset);
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
                takeover.token());
        switch (start) {
            case REFUSE_STALE ->
                    throw new StaleAttemptException(
                            "Refusing a stale attempt: "
                                    + claim.task()
                                    + " asked for "
                                    + span
                                    + " of "
                                    + store.tableName()
                                    + ", but "
                                    + staleness(claim, found).orElseThrow()
                                    + ". It was paused while the job moved on; it leaves the fence and"
                                    + " every table as they are.");
            case REFUSE_FRESH_START ->
                    throw new IllegalStateException(freshStartRefusal(span, found, checkpointsDir));
            case FLUSH_RESTORED -> {
                long c = claim.restoredCheckpoint().getAsLong();
                metrics.flushed(flush(c, state, flushMode(c, found, span)));
                reconcileCommitted(c, state);
            }
            case FLUSH_ERASED_RUN -> {
                // Everything this run wrote in the range belongs to an erased run that completed
                // no checkpoint: a flush from "checkpoint 0" with empty state removes exactly that.
                metrics.flushed(flush(0L, state, RestoreFlush.Mode.INCREMENTAL));
                store.discardStagedAfter(0L);
            }
            case RESET ->
                    LOG.warn(
                            "Fresh start with reset: deleted {} rows of {} in {}",
                            store.deleteAll(),
                            store.tableName(),
                            span);
            case BEGIN -> {}
        }
    }

    /**
     * Incremental when every key group of the range committed checkpoint {@code c} or later: the
     * table then holds every write before barrier {@code c} (see {@link RestoreFlush}). Full when
     * one did not: the notice of {@code c} was lost, the table is new to the job, or the database
     * lost acknowledged writes.
     */
    private RestoreFlush.Mode flushMode(long c, RangeRecord found, KeyGroupSpan span) {
        if (settings.alwaysFullFlush()) {
            return RestoreFlush.Mode.FULL;
        }
        if (found.committedInEveryKeyGroup() >= c) {
            return RestoreFlush.Mode.INCREMENTAL;
        }
        LOG.warn(
                "Full flush of {} in {}: restoring checkpoint {}, but the range's key groups have"
                        + " committed only through checkpoint {} (0: some never did). The table may"
                        + " lack writes acknowledged before that checkpoint (a lost completion"
                        + " notice, a new table, or a database that lost writes), so every key of"
                        + " restored state is set again.",
                store.tableName(),
                span,
                c,
                found.committedInEveryKeyGroup());
        return RestoreFlush.Mode.FULL;
    }

    private FlushReport flush(
            long checkpointId, RestoredState<K, V> state, RestoreFlush.Mode mode) {
        return new RestoreFlush<>(
                        store,
                        writer,
                        keyGroupOf,
                        settings.batchSize(),
                        settings.deleteStaleOnFlush())
                .run(checkpointId, state, mode);
    }

    /**
     * After a restore from {@code checkpointId}: what the erased run staged later goes; what was
     * staged up to it is committed (its notification may never have come); and a committed value
     * from a later checkpoint — only after an operator restored an older savepoint — is rolled back
     * to restored state, or removed where state holds no value.
     */
    private void reconcileCommitted(long checkpointId, RestoredState<K, V> state) {
        store.discardStagedAfter(checkpointId);
        store.recordRestore(checkpointId);
        metrics.committed(checkpointId, store.commit(checkpointId, Progress.UNKNOWN));
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

    private String freshStartRefusal(
            KeyGroupSpan span, RangeRecord found, Optional<String> checkpointsDir) {
        return "Refusing a fresh start: table "
                + store.tableName()
                + " already holds rows in "
                + span
                + ", written by "
                + found.ownerRuns()
                + ", and this job has no restored state to flush them against. "
                + whereToRestoreFrom(found, checkpointsDir)
                + " Or set "
                + FlushableSinkOptions.RESET_ON_FRESH_START.key()
                + "=true to delete those rows first.";
    }

    /** Names the retained checkpoint to restore from, checked against what the sink recorded. */
    private static String whereToRestoreFrom(RangeRecord found, Optional<String> checkpointsDir) {
        Optional<RetainedCheckpoints.Retained> retained =
                checkpointsDir.flatMap(
                        d ->
                                RetainedCheckpoints.toRestore(
                                        d, found.ownerRuns(), found.lastCommitted()));
        if (retained.isPresent()) {
            String path = retained.get().path();
            String restore =
                    "Restore the job from the retained checkpoint "
                            + path
                            + " (flink run -s "
                            + path
                            + " ...), or from a newer savepoint.";
            return retained.get().recorded()
                    ? restore + " It is the last checkpoint the sink committed for these rows."
                    : restore
                            + " The sink last committed checkpoint "
                            + found.lastCommitted()
                            + " for these rows; this newer one completed after it, so check that"
                            + " it is this job's: deployments with the same job id share its"
                            + " directory.";
        }
        return "Restore the job from its last retained checkpoint (in "
                + checkpointsDir
                        .map(d -> d.replaceAll("/+$", "") + "/<job id>/chk-<n>")
                        .orElse("execution.checkpointing.dir")
                + (found.lastCommitted() > 0
                        ? "; the sink last committed checkpoint " + found.lastCommitted()
                        : "")
                + ") or savepoint.";
    }
}
