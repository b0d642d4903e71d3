package io.effonce.sink.internal;

import io.effonce.sink.Progress;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The committed read contract: each key's value as of the latest completed checkpoint, in a table
 * of its own that never steps back (sink/README.md, "Two read contracts").
 */
@Internal
public interface CommittedTable<K, V> {

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
     * Moves the newest value staged at checkpoint {@code checkpointId} or before of each key of the
     * range into the committed table, as {@link #commit} does, but records no commit in the range's
     * progress: a restore whose range does not prove {@code checkpointId} catches up a lost notice
     * this way before its repair reads the committed table, and a cut before the repair ends leaves
     * no commit behind to pass for proof. Returns how many keys changed.
     */
    int promoteStaged(long checkpointId);

    /**
     * Records that savepoint {@code savepointId} completed for this range, without committing it:
     * the writes before its barrier are durable, as a commit would prove, but Flink may still
     * restore an older checkpoint by itself (a stop-with-savepoint that fails after its savepoint
     * completed), so its staged values stay staged. Only key groups whose latest commit is this
     * writer's run's carry the mark, and a commit of another run clears it: the mark speaks of this
     * run's timeline of checkpoint ids only.
     */
    void acknowledgeSavepoint(long savepointId);

    /**
     * Records a restore from {@code checkpointId} in the range's progress. Before a restored
     * checkpoint is committed again: if the range had committed a later one (an older savepoint was
     * restored), the event time it was complete through is no longer known. If {@code repaired}
     * (the range lacked the proof that it holds every write before the checkpoint, so its tables
     * were rewritten from state), also records the repair and the last final day the range had
     * recorded, for the recount.
     */
    void recordRestore(long checkpointId, boolean repaired);

    /**
     * Drops the staged values a restore erased ({@link StagedDiscard}): what was staged after the
     * restored checkpoint, and what an attempt outside its lineage staged.
     */
    void discardStaged(StagedDiscard discard);

    /**
     * Keys of this range whose committed value belongs to a checkpoint after {@code checkpointId}:
     * after a restore from an older savepoint, the ones to roll back.
     */
    List<K> keysCommittedAfter(long checkpointId);

    /**
     * Sets the live row of each of {@code keys} in this range whose committed value belongs to
     * checkpoint {@code checkpointId} or an earlier one (the value it held at {@code checkpointId})
     * to that value, tagged {@code tag}, in one transaction; returns those keys.
     */
    List<K> restoreLiveFromCommitted(long checkpointId, Collection<K> keys, long tag);

    /**
     * Rolls committed values back, in one transaction: sets {@code set} (each row's tag the
     * checkpoint restored) and removes {@code remove}.
     */
    void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove);
}
