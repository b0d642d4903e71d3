package io.effonce.sink.internal;

import io.effonce.jdbc.RefusedRowsException;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The live table, the read contract that follows the stream: each key's latest value as an absolute
 * SET tagged with the barrier it was written under, within the writer's range.
 */
@Internal
public interface LiveTable<K, V> {

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

    /**
     * Deletes the rows of these tombstones' keys, in one transaction that also records, per key
     * group, the newest tag under which a row was deleted ({@link RangeRecord#deletedSince}): a
     * deleted row leaves no tag for the incremental flush to find, so a restore from a checkpoint
     * no newer than that runs the full flush. Throws {@link RefusedRowsException} if the database
     * refuses a key for what it contains; nothing of the batch is deleted then.
     */
    void delete(List<StoredRow<K, V>> tombstones);
}
