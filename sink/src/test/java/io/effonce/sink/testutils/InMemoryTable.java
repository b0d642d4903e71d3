package io.effonce.sink.testutils;

import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RunLineage;
import io.effonce.sink.internal.StoredRow;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/** A totals table and its fence in memory, shared by the writers of one test. */
public final class InMemoryTable<K, V> {

    final Map<K, StoredRow<K, V>> rows = new LinkedHashMap<>();
    final Map<Integer, Long> fenceTokens = new HashMap<>();
    final Map<Integer, RangeOwner> fenceOwners = new HashMap<>();

    /** {@code sink_fences.owner_writer, owner_writes}: the owner's count at its last barrier. */
    final Map<Integer, WriterMark> fenceWrites = new HashMap<>();

    /** A writer and its count of acknowledged write calls. */
    record WriterMark(String writer, long writes) {}

    /** {@code sink_fences.owner_seen_at} on {@link #clock}; absent once its owner closed. */
    final Map<Integer, Long> fenceSeenAt = new HashMap<>();

    /** The database's clock, in milliseconds: it moves only when a test ages the leases. */
    long clock;

    final Set<String> supersededRuns = new HashSet<>();
    final List<StoredRow<K, V>> writeLog = new ArrayList<>();
    final Map<K, String> quarantined = new LinkedHashMap<>();
    final List<StoredRow<K, V>> staged = new ArrayList<>();

    /** {@code <table>_staged.staged_by}: the run that staged each row. */
    final Map<StoredRow<K, V>, String> stagedBy = new HashMap<>();

    final Map<K, StoredRow<K, V>> committed = new LinkedHashMap<>();

    /** Per key group, the newest tag under which a live row was deleted. */
    final Map<Integer, Long> deletionTags = new HashMap<>();

    final List<Long> commits = new ArrayList<>();
    final Map<Integer, ProgressRow> progress = new HashMap<>();

    /** {@code sink_progress.acknowledged_savepoint}: the newest savepoint acknowledged. */
    final Map<Integer, Long> acknowledgedSavepoints = new HashMap<>();

    /** The run that committed each key group's checkpoint in {@link #progress}. */
    final Map<Integer, String> committedRuns = new HashMap<>();

    final Map<Integer, RunLineage> committedLineages = new HashMap<>();

    /**
     * {@code sink_progress.proof_capped_at}: what another run's takeover left of a commit's proof.
     */
    final Map<Integer, Long> proofCaps = new HashMap<>();

    /**
     * {@code sink_repairs}: per key group and repairing run, the newest checkpoint a restore
     * repaired from state.
     */
    final Map<RepairedBy, Long> repairs = new HashMap<>();

    /** A key group repaired by a run. */
    record RepairedBy(int keyGroup, String run) {}

    /**
     * {@code sink_savepoint_barriers}: per key group, run and savepoint, the checkpoint a later
     * restore went back to ({@code Long.MAX_VALUE}: none did).
     */
    final Map<SavepointBarrier, Long> savepointBarriers = new HashMap<>();

    /** A key of {@link #savepointBarriers}. */
    record SavepointBarrier(int keyGroup, String run, long savepoint) {}

    /**
     * {@code sink_restart_gaps}: per key group, run and checkpoint an attempt of the run restored,
     * the first barrier that attempt passed, when above the next id.
     */
    final Map<RestartGap, Long> restartGaps = new HashMap<>();

    /** A key of {@link #restartGaps}. */
    record RestartGap(int keyGroup, String run, long restored) {}

    /** {@code sink_writers}: per writer, its write calls the table acknowledged. */
    final Map<String, Long> writerCounts = new HashMap<>();

    long tagIndexShift;

    /** {@code sink_deployment}: the last deployment number handed out. */
    long deployments;

    Predicate<K> refused = key -> false;
    long writeStatements;
    long lastToken;

    /**
     * From now on a batch holding a key {@code refused} accepts is refused whole, as PostgreSQL
     * refuses a statement (SQLSTATE 54000, an index row too large).
     */
    /**
     * Makes the tag index answer {@code barrier_tag > c} instead of {@code >= c}: a flush that
     * misses the rows written with the restored checkpoint's tag. Only for the counterfactual of
     * the incremental flush's argument.
     */
    /**
     * Forgets which key groups had live rows deleted, as a store that never recorded deletions
     * would: the counterfactual of the rule that a deletion after the restored barrier needs the
     * full flush.
     */
    /** A copy of everything the table keeps, to go back to ({@link #goBack}). */
    public synchronized Copy copy() {
        return new Copy(this);
    }

    /**
     * Puts the table back to {@code copy}, as a promoted asynchronous standby or a restored backup
     * puts a database back: rows, fence, progress, writers' counts and the token sequence. The
     * deployment numbers do not go back (PostgreSQL raises them to its clock).
     */
    public synchronized void goBack(Copy copy) {
        copy.restoreInto(this);
    }

    /** Puts back the copy's live, staged and committed rows and writers' counts only. */
    public synchronized void goBackRowsAndWriters(Copy copy) {
        copy.restoreRowsAndWritersInto(this);
    }

    /** Time passes for the owners' leases: each was last seen {@code by} longer ago. */
    public synchronized void ageLeases(Duration by) {
        clock += by.toMillis();
    }

    /** Everything an {@link InMemoryTable} keeps, at one moment. */
    public static final class Copy {
        private final InMemoryTable<Object, Object> saved = new InMemoryTable<>();

        @SuppressWarnings("unchecked")
        private Copy(InMemoryTable<?, ?> from) {
            copyInto((InMemoryTable<Object, Object>) from, saved);
        }

        @SuppressWarnings("unchecked")
        private void restoreInto(InMemoryTable<?, ?> to) {
            copyInto(saved, (InMemoryTable<Object, Object>) to);
        }

        @SuppressWarnings("unchecked")
        private void restoreRowsAndWritersInto(InMemoryTable<?, ?> to) {
            InMemoryTable<Object, Object> b = (InMemoryTable<Object, Object>) to;
            replace(b.rows, saved.rows);
            b.staged.clear();
            b.staged.addAll(saved.staged);
            replace(b.stagedBy, saved.stagedBy);
            replace(b.committed, saved.committed);
            replace(b.writerCounts, saved.writerCounts);
        }

        private static void copyInto(
                InMemoryTable<Object, Object> a, InMemoryTable<Object, Object> b) {
            replace(b.rows, a.rows);
            replace(b.fenceTokens, a.fenceTokens);
            replace(b.fenceOwners, a.fenceOwners);
            replace(b.fenceSeenAt, a.fenceSeenAt);
            replace(b.fenceWrites, a.fenceWrites);
            b.supersededRuns.clear();
            b.supersededRuns.addAll(a.supersededRuns);
            replace(b.quarantined, a.quarantined);
            b.staged.clear();
            b.staged.addAll(a.staged);
            replace(b.stagedBy, a.stagedBy);
            replace(b.committed, a.committed);
            replace(b.deletionTags, a.deletionTags);
            replace(b.progress, a.progress);
            replace(b.acknowledgedSavepoints, a.acknowledgedSavepoints);
            replace(b.committedRuns, a.committedRuns);
            replace(b.committedLineages, a.committedLineages);
            replace(b.proofCaps, a.proofCaps);
            replace(b.repairs, a.repairs);
            replace(b.writerCounts, a.writerCounts);
            replace(b.savepointBarriers, a.savepointBarriers);
            replace(b.restartGaps, a.restartGaps);
            b.lastToken = a.lastToken;
        }

        private static <X, Y> void replace(Map<X, Y> target, Map<X, Y> source) {
            target.clear();
            target.putAll(source);
        }
    }

    public synchronized void forgetDeletions() {
        deletionTags.clear();
    }

    public synchronized void missRowsTaggedWithTheRestoredCheckpoint() {
        tagIndexShift = 1;
    }

    public synchronized void refuse(Predicate<K> refused) {
        this.refused = refused;
    }

    /** The quarantined keys, with the reason recorded for each. */
    public synchronized Map<K, String> quarantined() {
        return new LinkedHashMap<>(quarantined);
    }

    /** Write statements attempted, refused ones included. */
    public synchronized long writeStatements() {
        return writeStatements;
    }

    /** The current value of every key, as dashboards would read it. */
    public synchronized Map<K, V> values() {
        Map<K, V> values = new LinkedHashMap<>();
        rows.forEach((k, row) -> values.put(k, row.value()));
        return values;
    }

    /** The committed value of every key: each as of the latest completed checkpoint. */
    public synchronized Map<K, V> committedValues() {
        Map<K, V> values = new LinkedHashMap<>();
        committed.forEach((k, row) -> values.put(k, row.value()));
        return values;
    }

    /** The checkpoint each committed value is from. */
    public synchronized Map<K, Long> committedCheckpoints() {
        Map<K, Long> ids = new LinkedHashMap<>();
        committed.forEach((k, row) -> ids.put(k, row.barrierTag()));
        return ids;
    }

    /** {@code sink_progress}: per key group, as the commits and restores left it. */
    public synchronized Map<Integer, ProgressRow> progress() {
        return new HashMap<>(progress);
    }

    /**
     * A row of {@code sink_progress}.
     *
     * @param watermark {@code Long.MIN_VALUE}: not known
     * @param finalThrough {@code null}: not known
     */
    public record ProgressRow(long checkpointId, long watermark, LocalDate finalThrough) {}

    /**
     * Everything the store keeps, in a fixed order: live, staged and committed rows, the fence, the
     * progress and the superseded runs. Two equal dumps mean nothing changed in between.
     */
    public synchronized String dump() {
        return String.join(
                "\n",
                "rows " + new TreeMap<>(stringKeys(rows)),
                "staged " + staged,
                "committed " + new TreeMap<>(stringKeys(committed)),
                "fence "
                        + new TreeMap<>(fenceTokens)
                        + " "
                        + new TreeMap<>(fenceOwners)
                        + " seen "
                        + new TreeMap<>(fenceSeenAt),
                "progress "
                        + new TreeMap<>(progress)
                        + " "
                        + new TreeMap<>(committedRuns)
                        + " savepoints "
                        + new TreeMap<>(acknowledgedSavepoints),
                "superseded " + new TreeSet<>(supersededRuns));
    }

    private static <K, X> Map<String, X> stringKeys(Map<K, X> map) {
        Map<String, X> out = new LinkedHashMap<>();
        map.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    /** Values staged and not yet committed or discarded. */
    public synchronized List<StoredRow<K, V>> staged() {
        return List.copyOf(staged);
    }

    public synchronized StoredRow<K, V> row(K key) {
        return rows.get(key);
    }

    /** Every row written, in order, including overwritten ones. */
    public synchronized List<StoredRow<K, V>> writeLog() {
        return List.copyOf(writeLog);
    }

    public synchronized void clearWriteLog() {
        writeLog.clear();
    }

    /** Plants a row as an earlier writer would have left it. */
    public synchronized void plant(StoredRow<K, V> row) {
        rows.put(row.key(), row);
    }
}
