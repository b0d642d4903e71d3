package io.effonce.sink.internal;

import io.effonce.jdbc.RefusedRows;
import io.effonce.jdbc.RefusedRowsException;
import java.util.List;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes and deletes batches in the live table, and stages them in the committed one. A batch the
 * database refuses for what its rows contain is split in halves until the refused rows are found;
 * each is quarantined in {@code dead_letters} and counted, and every other row is written. A clean
 * batch costs one statement; k bad rows in a batch of n cost about 2·k·log2(n) more. Any other
 * failure (connection, fencing) propagates: the task fails and Flink restores, so nothing is
 * dropped silently.
 *
 * <p>Quarantining one key is right for an absolute-SET sink: each row is a key's whole value, so
 * leaving one key behind changes no other key's total, and the next SET of that key (after the
 * cause is fixed) makes it whole again. Failing instead would stop every key, after every restore.
 */
final class QuarantiningWriter<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(QuarantiningWriter.class);

    private final LiveTable<K, V> live;
    private final CommittedTable<K, V> committed;
    private final String table;
    private final Counter quarantinedRows;

    QuarantiningWriter(
            LiveTable<K, V> live,
            CommittedTable<K, V> committed,
            String table,
            Counter quarantinedRows) {
        this.live = live;
        this.committed = committed;
        this.table = table;
        this.quarantinedRows = quarantinedRows;
    }

    /** Writes {@code rows}; returns how many were quarantined instead. */
    int write(List<StoredRow<K, V>> rows) {
        return RefusedRows.writeSplitting(rows, live::write, this::quarantine);
    }

    /**
     * Deletes the rows of {@code tombstones}' keys; returns how many were quarantined instead. A
     * key the database refuses to hold (a NUL character, say) was quarantined when it was set, and
     * the delete of it is refused in the same way: outside the quarantine it failed every replay.
     */
    int delete(List<StoredRow<K, V>> tombstones) {
        return RefusedRows.writeSplitting(tombstones, live::delete, this::quarantine);
    }

    /**
     * Stages {@code rows} at checkpoint {@code checkpointId}, leaving out the rows the database
     * refuses for their content; returns how many. Each was quarantined already: the live write of
     * the same key and value came first, before the barrier, so it is not counted again.
     */
    int stage(long checkpointId, List<StoredRow<K, V>> rows) {
        return RefusedRows.writeSplitting(
                rows,
                batch -> committed.stage(checkpointId, batch),
                (row, e) ->
                        LOG.debug(
                                "Not staging a quarantined row of {} (SQLSTATE {}), key group {}",
                                table,
                                e.sqlState(),
                                row.keyGroup()));
    }

    private void quarantine(StoredRow<K, V> row, RefusedRowsException e) {
        live.quarantine(row, e.sqlState(), e.databaseMessage());
        quarantinedRows.inc();
        String key = String.valueOf(row.key());
        LOG.warn(
                "Quarantined a row of {} that the database refuses (SQLSTATE {}: {}): key {},"
                        + " key group {}; it is in dead_letters, every other key keeps moving",
                table,
                e.sqlState(),
                e.databaseMessage(),
                key.length() <= 200
                        ? key
                        : key.substring(0, 200) + "... (" + key.length() + " chars)",
                row.keyGroup());
    }
}
