package io.effonce.sink.testutils;

import io.effonce.jdbc.RefusedRowsException;
import io.effonce.sink.Progress;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.FencedException;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.LostWritesException;
import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.RunLineage;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StagedDiscard;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import io.effonce.sink.testutils.InMemoryTable.ProgressRow;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/** A {@link SinkStore} over an {@link InMemoryTable}, with the same fencing rules. */
public final class InMemorySinkStore<K, V> implements SinkStore<K, V> {

    private final InMemoryTable<K, V> table;
    private KeyGroupSpan span;
    private long token;
    private String run;
    private RunLineage lineage;

    /** This writer's id and its write calls the table acknowledged (see {@code sink_writers}). */
    private final String writer = UUID.randomUUID().toString();

    private long acknowledged;

    /** What this writer's attempt restored, until it records its first barrier; else -1. */
    private long restoredBeforeFirstBarrier = -1;

    public InMemorySinkStore(InMemoryTable<K, V> table) {
        this.table = table;
    }

    /** A factory over one shared table. Not serializable in practice: harness tests only. */
    public static <K, V> SinkStoreFactory<K, V> factory(InMemoryTable<K, V> table) {
        return new SinkStoreFactory<>() {
            @Override
            public SinkStore<K, V> create() {
                return new InMemorySinkStore<>(table);
            }

            @Override
            public OptionalLong numberDeployment() {
                synchronized (table) {
                    return OptionalLong.of(++table.deployments);
                }
            }
        };
    }

    @Override
    public Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
        synchronized (table) {
            Set<RangeOwner> owners = new HashSet<>();
            long committedByRun = 0;
            long lastCommitted = 0;
            long newestDeletion = 0;
            Set<RunLineage> committedLineages = new HashSet<>();
            for (int g = span.first(); g <= span.last(); g++) {
                newestDeletion = Math.max(newestDeletion, table.deletionTags.getOrDefault(g, 0L));
                RangeOwner owner = table.fenceOwners.get(g);
                if (owner != null) {
                    owners.add(owner);
                }
                ProgressRow progress = table.progress.get(g);
                RunLineage committedLineage = table.committedLineages.get(g);
                if (committedLineage != null) {
                    committedLineages.add(committedLineage);
                }
                if (progress != null) {
                    lastCommitted = Math.max(lastCommitted, progress.checkpointId());
                    if (claim.run().equals(table.committedRuns.get(g))) {
                        committedByRun = Math.max(committedByRun, progress.checkpointId());
                    }
                }
            }
            RangeRecord found =
                    new RangeRecord(
                            owners,
                            committedByRun,
                            lastCommitted,
                            InMemoryProof.durableThrough(table, span, claim),
                            table.supersededRuns.contains(claim.run()),
                            table.rows.values().stream().anyMatch(r -> span.contains(r.keyGroup()))
                                    || table.staged.stream()
                                            .anyMatch(r -> span.contains(r.keyGroup()))
                                    || table.committed.values().stream()
                                            .anyMatch(r -> span.contains(r.keyGroup())),
                            newestDeletion,
                            committedLineages,
                            InMemoryProof.savepointBranchErasedAt(table, span, claim),
                            InMemoryProof.newestRepair(table, span, claim),
                            leases(span),
                            InMemoryProof.laterDeployment(table, claim));
            TakeoverTerms decided = terms.apply(found);
            if (!decided.takes()) {
                return new Takeover(found, false, -1);
            }
            if (decided.revokesProof()) {
                InMemoryProof.revoke(table, span);
            }
            InMemoryProof.writersDisplaced(table, span);
            long newToken = ++table.lastToken;
            for (RangeOwner owner : owners) {
                if (!owner.id().run().equals(claim.run())) {
                    table.supersededRuns.add(owner.id().run());
                }
            }
            for (int g = span.first(); g <= span.last(); g++) {
                table.fenceOwners.put(g, RangeOwner.taking(claim, found));
                table.fenceTokens.put(g, newToken);
                table.fenceSeenAt.put(g, table.clock);
                table.fenceWrites.put(g, new InMemoryTable.WriterMark(writer, 0));
            }
            InMemoryProof.takenBy(table, span, claim);
            this.span = span;
            this.token = newToken;
            this.run = claim.run();
            this.lineage = claim.lineage();
            this.acknowledged = 0;
            this.restoredBeforeFirstBarrier = claim.restoredOrZero();
            table.writerCounts.put(writer, 0L);
            return new Takeover(found, true, newToken);
        }
    }

    @Override
    public void recordSavepointBarrier(long savepointId) {
        synchronized (table) {
            checkFence();
            for (int g = span.first(); g <= span.last(); g++) {
                table.savepointBarriers.putIfAbsent(
                        new InMemoryTable.SavepointBarrier(g, run, savepointId), Long.MAX_VALUE);
            }
        }
    }

    @Override
    public void recordBarrier(long checkpointId) {
        synchronized (table) {
            checkFence();
            for (int g = span.first(); g <= span.last(); g++) {
                table.fenceOwners.put(g, table.fenceOwners.get(g).passed(checkpointId));
                table.fenceSeenAt.put(g, table.clock);
                table.fenceWrites.put(g, new InMemoryTable.WriterMark(writer, acknowledged));
                if (restoredBeforeFirstBarrier >= 0
                        && checkpointId > restoredBeforeFirstBarrier + 1) {
                    table.restartGaps.merge(
                            new InMemoryTable.RestartGap(g, run, restoredBeforeFirstBarrier),
                            checkpointId,
                            Math::max);
                }
            }
            restoredBeforeFirstBarrier = -1;
        }
    }

    @Override
    public void releaseLease() {
        synchronized (table) {
            if (span == null) {
                return;
            }
            for (int g = span.first(); g <= span.last(); g++) {
                if (table.fenceTokens.getOrDefault(g, -1L) == token) {
                    table.fenceSeenAt.remove(g);
                }
            }
        }
    }

    /** Per run owning key groups of {@code span} and not closed: how long ago it was last seen. */
    private Map<String, Duration> leases(KeyGroupSpan span) {
        Map<String, Duration> leases = new HashMap<>();
        for (int g = span.first(); g <= span.last(); g++) {
            Long seenAt = table.fenceSeenAt.get(g);
            if (seenAt != null) {
                leases.merge(
                        table.fenceOwners.get(g).id().run(),
                        Duration.ofMillis(table.clock - seenAt),
                        (x, y) -> x.compareTo(y) <= 0 ? x : y);
            }
        }
        return leases;
    }

    @Override
    public void write(List<StoredRow<K, V>> rows) {
        synchronized (table) {
            checkFence();
            table.writeStatements++;
            refuseWhole("Writing", rows);
            for (StoredRow<K, V> row : rows) {
                if (!span.contains(row.keyGroup())) {
                    throw new IllegalArgumentException("key group outside " + span);
                }
                table.rows.put(row.key(), row);
                table.writeLog.add(row);
            }
        }
    }

    /** Refuses the whole statement if any of its keys is refused, as PostgreSQL does. */
    private void refuseWhole(String what, List<StoredRow<K, V>> rows) {
        for (StoredRow<K, V> row : rows) {
            if (table.refused.test(row.key())) {
                throw new RefusedRowsException(
                        what + " " + rows.size() + " rows",
                        "54000",
                        "index row requires 11472 bytes, maximum size is 8191",
                        null);
            }
        }
    }

    @Override
    public void quarantine(StoredRow<K, V> row, String sqlState, String message) {
        synchronized (table) {
            table.quarantined.putIfAbsent(row.key(), "SQLSTATE " + sqlState + ": " + message);
        }
    }

    @Override
    public List<K> keysTaggedSince(long tag) {
        synchronized (table) {
            List<K> keys = new ArrayList<>();
            for (StoredRow<K, V> row : table.rows.values()) {
                if (row.barrierTag() >= tag + table.tagIndexShift
                        && span.contains(row.keyGroup())) {
                    keys.add(row.key());
                }
            }
            return keys;
        }
    }

    @Override
    public void delete(List<StoredRow<K, V>> tombstones) {
        synchronized (table) {
            checkFence();
            refuseWhole("Deleting", tombstones);
            for (StoredRow<K, V> tombstone : tombstones) {
                if (!span.contains(tombstone.keyGroup())) {
                    throw new IllegalArgumentException("key group outside " + span);
                }
                table.deletionTags.merge(tombstone.keyGroup(), tombstone.barrierTag(), Math::max);
                StoredRow<K, V> row = table.rows.get(tombstone.key());
                if (row != null && span.contains(row.keyGroup())) {
                    table.rows.remove(tombstone.key());
                }
            }
        }
    }

    @Override
    public long deleteAll() {
        synchronized (table) {
            checkFence();
            long before = table.rows.size();
            table.rows.values().removeIf(r -> span.contains(r.keyGroup()));
            table.staged.removeIf(r -> span.contains(r.keyGroup()));
            table.committed.values().removeIf(r -> span.contains(r.keyGroup()));
            table.progress.keySet().removeIf(span::contains);
            table.acknowledgedSavepoints.keySet().removeIf(span::contains);
            table.committedRuns.keySet().removeIf(span::contains);
            table.committedLineages.keySet().removeIf(span::contains);
            table.proofCaps.keySet().removeIf(span::contains);
            table.deletionTags.keySet().removeIf(span::contains);
            table.savepointBarriers
                    .entrySet()
                    .removeIf(
                            e ->
                                    span.contains(e.getKey().keyGroup())
                                            && e.getValue() == Long.MAX_VALUE);
            return before - table.rows.size();
        }
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<K, V>> rows) {
        synchronized (table) {
            checkFence();
            for (StoredRow<K, V> row : rows) {
                table.staged.removeIf(
                        r -> r.barrierTag() == checkpointId && r.key().equals(row.key()));
                table.staged.add(row);
                table.stagedBy.put(row, run);
            }
        }
    }

    @Override
    public int commit(long checkpointId, Progress progress) {
        synchronized (table) {
            checkFence();
            int moved = moveStaged(checkpointId);
            table.commits.add(checkpointId);
            for (int g = span.first(); g <= span.last(); g++) {
                ProgressRow was = table.progress.get(g);
                table.progress.put(
                        g,
                        was == null
                                ? new ProgressRow(
                                        checkpointId, progress.watermark(), progress.finalThrough())
                                : new ProgressRow(
                                        checkpointId,
                                        Math.max(was.watermark(), progress.watermark()),
                                        later(was.finalThrough(), progress.finalThrough())));
                table.committedLineages.put(g, lineage);
                table.proofCaps.remove(g);
                if (!run.equals(table.committedRuns.put(g, run))) {
                    table.acknowledgedSavepoints.remove(g); // another run's timeline of ids
                }
            }
            return moved;
        }
    }

    @Override
    public int promoteStaged(long checkpointId) {
        synchronized (table) {
            checkFence();
            return moveStaged(checkpointId);
        }
    }

    /** Moves the newest staged value through {@code checkpointId} of each key into committed. */
    private int moveStaged(long checkpointId) {
        Map<K, StoredRow<K, V>> newest = new LinkedHashMap<>();
        for (StoredRow<K, V> row : table.staged) {
            if (row.barrierTag() <= checkpointId && span.contains(row.keyGroup())) {
                newest.merge(row.key(), row, (a, b) -> a.barrierTag() >= b.barrierTag() ? a : b);
            }
        }
        table.staged.removeIf(r -> r.barrierTag() <= checkpointId && span.contains(r.keyGroup()));
        newest.values()
                .forEach(
                        row -> {
                            if (row.isTombstone()) {
                                table.committed.remove(row.key());
                            } else {
                                table.committed.put(row.key(), row);
                            }
                        });
        return newest.size();
    }

    private static LocalDate later(LocalDate a, LocalDate b) {
        return a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
    }

    @Override
    public void acknowledgeSavepoint(long savepointId) {
        synchronized (table) {
            checkFence();
            for (int g = span.first(); g <= span.last(); g++) {
                if (table.progress.containsKey(g) && run.equals(table.committedRuns.get(g))) {
                    table.acknowledgedSavepoints.merge(g, savepointId, Math::max);
                }
            }
        }
    }

    @Override
    public void recordRestore(long checkpointId, boolean repaired) {
        synchronized (table) {
            checkFence();
            for (int g = span.first(); g <= span.last(); g++) {
                if (table.acknowledgedSavepoints.getOrDefault(g, 0L) > checkpointId) {
                    table.acknowledgedSavepoints.remove(g); // the restore erased it
                }
                if (repaired) {
                    table.repairs.merge(
                            new InMemoryTable.RepairedBy(g, run), checkpointId, Math::max);
                }
                ProgressRow was = table.progress.get(g);
                if (was == null) {
                    table.progress.put(g, new ProgressRow(checkpointId, Long.MIN_VALUE, null));
                } else if (was.checkpointId() > checkpointId) {
                    table.progress.put(
                            g, new ProgressRow(was.checkpointId(), Long.MIN_VALUE, null));
                }
            }
        }
    }

    @Override
    public void discardStaged(StagedDiscard discard) {
        synchronized (table) {
            checkFence();
            table.staged.removeIf(
                    r ->
                            span.contains(r.keyGroup())
                                    && discard.discards(table.stagedBy.get(r), r.barrierTag()));
        }
    }

    @Override
    public List<K> keysCommittedAfter(long checkpointId) {
        synchronized (table) {
            return table.committed.values().stream()
                    .filter(r -> r.barrierTag() > checkpointId && span.contains(r.keyGroup()))
                    .map(StoredRow::key)
                    .toList();
        }
    }

    @Override
    public List<K> restoreLiveFromCommitted(long checkpointId, Collection<K> keys, long tag) {
        synchronized (table) {
            checkFence();
            List<K> restored = new ArrayList<>();
            for (K k : keys) {
                StoredRow<K, V> r = table.committed.get(k);
                if (r != null && r.barrierTag() <= checkpointId && span.contains(r.keyGroup())) {
                    table.rows.put(k, new StoredRow<>(k, r.value(), r.keyGroup(), tag));
                    restored.add(k);
                }
            }
            return restored;
        }
    }

    @Override
    public void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove) {
        synchronized (table) {
            checkFence();
            set.forEach(row -> table.committed.put(row.key(), row));
            remove.forEach(table.committed::remove);
        }
    }

    @Override
    public String tableName() {
        return "in_memory_totals";
    }

    @Override
    public void close() {}

    /**
     * The fence check and the write check of every call that writes, as PostgreSQL's store makes
     * them in each transaction: a table that went back in time ({@link InMemoryTable#goBack}) holds
     * fewer of this writer's calls than it acknowledged, or a fence older than its own.
     */
    private void checkFence() {
        for (int g = span.first(); g <= span.last(); g++) {
            Long owner = table.fenceTokens.get(g);
            if (owner == null || owner < token) {
                throw lostWrites("its fence is back to an owner before it (token " + owner + ")");
            }
            if (owner != token) {
                throw new FencedException("token " + token + " no longer owns key group " + g);
            }
        }
        Long held = table.writerCounts.get(writer);
        if (held == null || held != acknowledged) {
            InMemoryProof.revoke(table, span);
            throw lostWrites(
                    "it holds " + held + " of the " + acknowledged + " calls it acknowledged");
        }
        table.writerCounts.put(writer, ++acknowledged);
    }

    private LostWritesException lostWrites(String found) {
        return new LostWritesException(
                "The in-memory table went back in time under " + span + ": " + found);
    }
}
