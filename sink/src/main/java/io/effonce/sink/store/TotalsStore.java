package io.effonce.sink.store;

import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * The table the flushable sink writes, as one writer sees it. A store is bound to the key-group
 * range its writer took with {@link #takeOwnership}; every later call acts on that range only and
 * fails with {@link FencedException}, without committing anything, once another writer has taken
 * any of those key groups.
 *
 * <p>The contract test {@code TotalsStoreContract} holds every implementation to the same
 * behaviour.
 */
public interface TotalsStore<K, V> extends AutoCloseable {

    /**
     * Takes {@code span} for {@code claim} if {@code mayTake} accepts what the range holds, read
     * inside the takeover's own transaction (takeovers of one table are serialized, and the fence
     * rows stay locked until it ends): the database, not the caller's memory, decides who is newer.
     * When taken, the claimant gets a token bigger than any before, the fence records the claim, a
     * run it took key groups from is marked superseded, and from now on the previous owners' writes
     * are refused. When not taken, nothing is written.
     */
    Takeover takeOwnership(KeyGroupSpan span, Claim claim, Predicate<RangeRecord> mayTake);

    /**
     * Writes every row as an absolute SET, in one transaction. Throws {@link RefusedRowsException}
     * if the database refuses the rows for what they contain; nothing of the batch is written then.
     */
    void write(List<StoredRow<K, V>> rows);

    /**
     * Records a row the database refused for what it contains in {@code dead_letters} (idempotent:
     * the same key again adds nothing), so every other key can keep moving.
     */
    void quarantine(StoredRow<K, V> row, String sqlState, String message);

    /**
     * The keys in this writer's range whose barrier tag is {@code tag} or later (the tag index).
     */
    List<K> keysTaggedSince(long tag);

    /** Deletes these keys' rows, in one transaction. */
    void delete(Collection<K> keys);

    /** Deletes every row in this writer's key-group range; returns how many. */
    long deleteAll();

    // The committed read contract: each key's value as of the latest completed checkpoint, in a
    // table of its own that never steps back (sink/README.md, "Two read contracts").

    /**
     * Stages the values these keys have at checkpoint {@code checkpointId} (each row's tag is that
     * id), to become committed when the checkpoint completes.
     */
    void stage(long checkpointId, List<StoredRow<K, V>> rows);

    /**
     * Commits checkpoint {@code checkpointId} for this range: the newest staged value of each key
     * staged at that checkpoint or before becomes its committed value and leaves the staging area,
     * and the commit is announced to listeners. An earlier commit that never came is caught up. The
     * range's progress records the checkpoint and, unless {@link Progress#UNKNOWN}, how far its
     * totals are complete (never less than recorded before). Returns how many keys changed.
     */
    int commit(long checkpointId, Progress progress);

    /**
     * Records a restore from {@code checkpointId} in the range's progress. Before a restored
     * checkpoint is committed again: if the range had committed a later one (an older savepoint was
     * restored), the event time it was complete through is no longer known.
     */
    void recordRestore(long checkpointId);

    /**
     * Drops what was staged after {@code checkpointId}: a restore erased the run that staged it.
     */
    void discardStagedAfter(long checkpointId);

    /**
     * Keys of this range whose committed value belongs to a checkpoint after {@code checkpointId}:
     * after a restore from an older savepoint, the ones to roll back.
     */
    List<K> keysCommittedAfter(long checkpointId);

    /**
     * Rolls committed values back, in one transaction: sets {@code set} (each row's tag the
     * checkpoint restored) and removes {@code remove}.
     */
    void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove);

    /** The table's name, for messages. */
    String tableName();

    @Override
    void close();
}
