package io.effonce.sink.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flush after a restore from checkpoint {@code c}, for one writer's key-group range. The
 * {@linkplain Mode#FULL full flush}:
 *
 * <ol>
 *   <li>read the tag index for keys tagged {@code c} or later: what the erased run wrote after
 *       barrier {@code c} reached this sink;
 *   <li>SET every key of restored state to its restored value, tagged {@code c};
 *   <li>delete each key found in step 1 that restored state does not hold: the replay may never
 *       write it again (new job logic, a retired key), so nothing else would remove it.
 * </ol>
 *
 * <p>The {@linkplain Mode#INCREMENTAL incremental flush} does steps 1 and 3 and, in step 2, SETs
 * only the keys found in step 1: its cost is what changed since {@code c}, not the size of the
 * state. It is enough when the table holds every write acknowledged before barrier {@code c}: a row
 * tagged below {@code c} then already holds its key's value at {@code c} (tags only grow, and every
 * write before a barrier is durable before the checkpoint is acknowledged). The argument, case by
 * case, and what proves the barrier durable are in docs/flushable-sink.md ("The protocol in
 * detail"); {@link StartPlan} says which flush a restore runs.
 *
 * <p>When the range lacks that commit the committed table cannot be trusted either: the values
 * staged before barrier {@code c} may be gone with the lost writes, and the commits they came from
 * with them. The flush then also stages every key it sets at {@code c} ({@code restage}), so that
 * the commit of {@code c} that follows it rewrites the committed table from state as well.
 *
 * <p>Three repairs for a database that went back, each a rule of docs/flushable-sink.md: the
 * tombstones state keeps for the retention are deleted again (a row the copy brought back); with
 * {@code forkFrom} below {@code c} (the database holds the progress of another lineage, its {@link
 * RunLineage} parting from the restored one there) every key tagged from the fork that state does
 * not hold goes, live and committed; with {@code suspectFrom} below {@code c} (an attempt outside
 * the lineage held the range: the copy forgot the fence) every key tagged from there that neither
 * state nor the committed table holds goes.
 *
 * <p>A key tagged since the restore that state no longer holds but whose committed value is from
 * {@code c} or before is a retired key's final value no longer retained (an earlier repair wrote it
 * back under tag {@code c}; or the erased run wrote the key again): its live row is set back to
 * that value and stays.
 *
 * <p>The tag index is read before the SETs so that it returns only the erased run's writes, not
 * every restored key rewritten with tag {@code c}. The outcome equals the set-then-scan order
 * because the writer owns the range: no other writer can add a row in between.
 */
@Internal
public final class RestoreFlush<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreFlush.class);

    /** How much of the restored state a flush writes. */
    @Internal
    public enum Mode {
        /** Every key of restored state: repairs a table that lost acknowledged writes. */
        FULL,
        /** Only the keys tagged at or after the restored checkpoint. */
        INCREMENTAL
    }

    /**
     * Restored keys are SET in batches of at least this many rows: the flush holds up the whole
     * subtask, so it trades the live path's small batches for fewer, larger statements.
     */
    static final int MIN_FLUSH_BATCH = 10_000;

    private final LiveTable<K, V> live;
    private final CommittedTable<K, V> committed;
    private final String table;
    private final QuarantiningWriter<K, V> writer;
    private final ToIntFunction<K> keyGroupOf;
    private final int batchSize;

    /**
     * @param live the table it reads tags from and deletes stale keys in
     * @param committed read for the keys a committed value keeps, and to set a final row back
     * @param table the table's name, for the log
     * @param batchSize the live path's batch size; the flush uses at least {@link #MIN_FLUSH_BATCH}
     */
    RestoreFlush(
            LiveTable<K, V> live,
            CommittedTable<K, V> committed,
            String table,
            QuarantiningWriter<K, V> writer,
            ToIntFunction<K> keyGroupOf,
            int batchSize) {
        this.live = live;
        this.committed = committed;
        this.table = table;
        this.writer = writer;
        this.keyGroupOf = keyGroupOf;
        this.batchSize = Math.max(batchSize, MIN_FLUSH_BATCH);
    }

    /** Runs the flush {@code plan} says against {@code restoredState} (see the class comment). */
    FlushReport run(StartPlan.FlushPlan plan, RestoredState<K, V> restoredState) {
        long checkpointId = plan.checkpoint();
        Mode mode = plan.mode();
        boolean restage = plan.restage();
        long suspectFrom = plan.suspectFrom();
        long forkFrom = plan.forkFrom();
        long start = System.nanoTime();
        List<K> taggedSinceRestore = live.keysTaggedSince(checkpointId);
        List<K> outsideTheLineage =
                suspectFrom < checkpointId
                        ? writtenOutsideTheLineage(suspectFrom, taggedSinceRestore)
                        : List.of();

        FlushBatches<K, V> batches =
                new FlushBatches<>(writer, keyGroupOf, batchSize, checkpointId, restage);
        List<K> stale = new ArrayList<>();
        // Keys whose rows the database may hold though the lineage deleted or never wrote them.
        List<K> notOfTheLineage = new ArrayList<>();
        if (mode == Mode.FULL) {
            restoredState.forEach(batches::add);
            restoredState.forEachDeleted(notOfTheLineage::add);
        }
        if (forkFrom < checkpointId) {
            for (K key : live.keysTaggedSince(forkFrom)) {
                if (restoredState.valueOf(key) == null) {
                    notOfTheLineage.add(key);
                }
            }
        }
        for (K key : taggedSinceRestore) {
            V value = restoredState.valueOf(key);
            if (value == null) {
                stale.add(key);
            } else if (mode == Mode.INCREMENTAL) {
                batches.add(key, value);
            }
        }
        stale.removeAll(finalRowsNoLongerRetained(checkpointId, stale));
        for (K key : outsideTheLineage) {
            if (restoredState.valueOf(key) == null) {
                stale.add(key);
            }
        }
        batches.writeRest();
        Set<K> staleKeys = new HashSet<>(stale);
        for (K key : notOfTheLineage) {
            if (staleKeys.add(key)) {
                stale.add(key);
            }
        }
        if (restage) {
            stageDeletions(checkpointId, notOfTheLineage);
        }
        // Recorded under the tag before checkpointId: a later restore from checkpointId finds these
        // keys absent from state too, one from an older checkpoint may not.
        // Through the quarantine: a tombstone of state names a key the database may refuse.
        inBatches(tombstones(stale, checkpointId - 1), writer::delete);
        long deleted = stale.size();
        FlushReport report =
                new FlushReport(
                        mode, batches.set, deleted, (System.nanoTime() - start) / 1_000_000);
        LOG.info(
                "{} flush of {} after restore from checkpoint {}: {} rows tagged {} or later,"
                        + " {} keys set from state, {} stale keys deleted, in {} ms",
                restage ? "Full (committed table too)" : mode == Mode.FULL ? "Full" : "Incremental",
                table,
                checkpointId,
                taggedSinceRestore.size(),
                checkpointId,
                report.keysSet(),
                report.keysDeleted(),
                report.durationMillis());
        return report;
    }

    /**
     * Stages the deletion of each key at the restored checkpoint: the committed table the database
     * went back to may hold its value, and the commit of that checkpoint removes it.
     */
    private void stageDeletions(long checkpointId, List<K> deleted) {
        inBatches(tombstones(deleted, checkpointId), rows -> writer.stage(checkpointId, rows));
    }

    private List<StoredRow<K, V>> tombstones(List<K> keys, long tag) {
        return keys.stream()
                .map(key -> StoredRow.<K, V>tombstone(key, keyGroupOf.applyAsInt(key), tag))
                .toList();
    }

    private void inBatches(List<StoredRow<K, V>> rows, Consumer<List<StoredRow<K, V>>> write) {
        for (int from = 0; from < rows.size(); from += batchSize) {
            write.accept(rows.subList(from, Math.min(rows.size(), from + batchSize)));
        }
    }

    /**
     * Those of {@code stale}, tagged since the restore and absent from state, whose committed value
     * is from checkpoint {@code checkpointId} or before: retired keys whose final value state no
     * longer retains. Their live rows are set back to that value (an earlier repair wrote it back
     * under this tag, or the erased run wrote the key again) and they stay.
     */
    private Set<K> finalRowsNoLongerRetained(long checkpointId, List<K> stale) {
        if (stale.isEmpty() || checkpointId <= 0) {
            return Set.of(); // "checkpoint 0" is before every commit
        }
        Set<K> kept =
                new HashSet<>(
                        committed.restoreLiveFromCommitted(checkpointId, stale, checkpointId));
        if (!kept.isEmpty()) {
            LOG.info(
                    "Flush of {}: {} keys tagged {} or later that state no longer holds have a"
                            + " value committed at or before it, a final value no longer retained;"
                            + " their live rows are set to it and stay",
                    table,
                    kept.size(),
                    checkpointId);
        }
        return kept;
    }

    /**
     * Keys tagged from {@code suspectFrom} on, but below the restored checkpoint, that the
     * committed table does not hold.
     */
    private List<K> writtenOutsideTheLineage(long suspectFrom, List<K> taggedSinceRestore) {
        Set<K> notSuspect = new HashSet<>(taggedSinceRestore);
        notSuspect.addAll(committed.keysCommittedAfter(-1));
        List<K> suspect = new ArrayList<>();
        for (K key : live.keysTaggedSince(suspectFrom)) {
            if (!notSuspect.contains(key)) {
                suspect.add(key);
            }
        }
        LOG.warn(
                "The range of {} was held by an attempt outside the restored checkpoint's lineage"
                        + " (a run that took it from an older checkpoint, or a database that went"
                        + " back and forgot the fence): {} keys it may have written from tag {} on"
                        + " are neither in state nor committed, and go",
                table,
                suspect.size(),
                suspectFrom);
        return suspect;
    }
}
