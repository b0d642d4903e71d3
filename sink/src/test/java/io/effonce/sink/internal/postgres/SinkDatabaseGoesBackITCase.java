package io.effonce.sink.internal.postgres;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.opened;
import static io.effonce.sink.testutils.SinkHarnesses.restoredFrom;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkChange;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.internal.LostWritesException;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.junit.PostgresExtension;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sink's database goes back three completed checkpoints while the sink runs (its tables and
 * sequences put back to a copy in one transaction and its sessions ended, as a promoted
 * asynchronous standby does), with a final day retired inside the lost window. The sink notices at
 * its next write, fails, and the restore of the last checkpoint repairs the live and the committed
 * table; without the check, or without the retired values, wrong rows stay for good.
 */
@ExtendWith(PostgresExtension.class)
class SinkDatabaseGoesBackITCase {

    private static final LocalDate DAY_1 = LocalDate.of(2026, 11, 28);
    private static final LocalDate DAY_2 = LocalDate.of(2026, 11, 29);
    private static final TestKey M1 = new TestKey("m1", DAY_2, "EUR");
    private static final TestKey M2 = new TestKey("m2", DAY_2, "EUR");

    /** Final in the lost window: its last value is written at 3, it retires at 4. */
    private static final TestKey CLOSED = new TestKey("m1", DAY_1, "EUR");

    private static final TypeInformation<TestKey> KEY = TypeInformation.of(TestKey.class);

    private static final Map<TestKey, Long> AT_5 = Map.of(M1, 400L, M2, 10L, CLOSED, 70L);

    private PostgresEndpoint db;
    private TotalsTable<TestKey> table;
    private PostgresStoreConfig config;

    @BeforeEach
    void emptyTables(PostgresEndpoint db) {
        this.db = db;
        table = TotalsTable.emptied(db);
        config = table.config();
    }

    @Test
    void theSinkNoticesAtItsNextWriteAndTheRestoreRepairsBothTables() throws Exception {
        FlushableSink<TestKey, TestTotal> sink = sink(checked()).build();
        OperatorSubtaskState checkpoint5;
        try (var v1 = opened(sink, KEY)) {
            checkpoint5 = runThenGoBack(v1);
            upsert(v1, M1, 500);
            assertThatThrownBy(() -> v1.prepareSnapshotPreBarrier(6))
                    .isInstanceOf(LostWritesException.class)
                    .hasMessageContaining("went back in time")
                    .hasMessageContaining("merchant_daily_totals");
        }
        try (var v2 = restoredFrom(sink, KEY, checkpoint5, 5)) {
            assertThat(table.totals()).isEqualTo(AT_5);
            assertThat(table.committed()).isEqualTo(AT_5);
            assertThat(table.committedCheckpoints()).containsEntry(CLOSED, 5L);
            assertThat(repairsRecorded())
                    .as("the restore's repair, for the recount")
                    .containsExactly(5L);
            upsert(v2, M1, 500);
            checkpoint(v2, 6);
            v2.notifyOfCompletedCheckpoint(6);
            assertThat(table.committed()).containsEntry(M1, 500L).containsEntry(CLOSED, 70L);
        }
    }

    @Test
    void withoutTheCheckTheSinkWritesOnAndTheLostRowsStayWrong() throws Exception {
        FlushableSink<TestKey, TestTotal> sink =
                sink(PostgresStores.deployed(
                                config.toBuilder().lostWriteCheck(false).build(), TestRows.MAPPING))
                        .build();
        try (var v1 = opened(sink, KEY)) {
            runThenGoBack(v1);
            upsert(v1, M1, 500);
            checkpoint(v1, 6);
            v1.notifyOfCompletedCheckpoint(6);
        }
        // M2 (written at 3) and the closed day's final value are lost for good: no restore comes.
        assertThat(table.totals()).isEqualTo(Map.of(M1, 500L, CLOSED, 50L));
        assertThat(table.committed()).isEqualTo(Map.of(M1, 500L, CLOSED, 50L));
    }

    @Test
    void withoutRetiredValuesTheRepairCannotRewriteTheClosedDay() throws Exception {
        FlushableSink<TestKey, TestTotal> sink =
                sink(checked()).retiredRetention(Duration.ZERO).build();
        OperatorSubtaskState checkpoint5;
        try (var v1 = opened(sink, KEY)) {
            checkpoint5 = runThenGoBack(v1);
            upsert(v1, M1, 500);
            assertThatThrownBy(() -> v1.prepareSnapshotPreBarrier(6))
                    .isInstanceOf(LostWritesException.class);
        }
        try (var v2 = restoredFrom(sink, KEY, checkpoint5, 5)) {
            assertThat(table.totals()).containsEntry(M2, 10L).containsEntry(CLOSED, 50L);
            assertThat(table.committed()).containsEntry(M2, 10L).containsEntry(CLOSED, 50L);
        }
    }

    /**
     * Checkpoints 1 to 5, each completed; the database is copied after 2 and put back after 5: the
     * commits of 3, 4 and 5 are lost, with M2 and the closed day's final value. Returns checkpoint
     * 5.
     */
    private OperatorSubtaskState runThenGoBack(
            KeyedOneInputStreamOperatorTestHarness<TestKey, SinkChange<TestKey, TestTotal>, Void> h)
            throws Exception {
        upsert(h, M1, 100);
        upsert(h, CLOSED, 50);
        completed(h, 1);
        upsert(h, M1, 200);
        completed(h, 2);
        SinkDatabaseRollback standby = SinkDatabaseRollback.copy(db);
        upsert(h, M1, 300);
        upsert(h, CLOSED, 70);
        upsert(h, M2, 10);
        completed(h, 3);
        h.processElement(new StreamRecord<>(SinkChange.retire(CLOSED)));
        completed(h, 4);
        upsert(h, M1, 400);
        OperatorSubtaskState checkpoint5 = completed(h, 5);
        assertThat(table.committed()).isEqualTo(AT_5);
        standby.restore();
        assertThat(table.totals()).isEqualTo(Map.of(M1, 200L, CLOSED, 50L));
        return checkpoint5;
    }

    /** The restored checkpoints of the repairs {@code sink_repairs} holds. */
    private java.util.List<Long> repairsRecorded() throws java.sql.SQLException {
        java.util.List<Long> checkpoints = new java.util.ArrayList<>();
        try (var c = db.connect();
                var s = c.createStatement();
                var rs =
                        s.executeQuery("SELECT restored_checkpoint FROM sink_repairs ORDER BY 1")) {
            while (rs.next()) {
                checkpoints.add(rs.getLong(1));
            }
        }
        return checkpoints;
    }

    private static OperatorSubtaskState completed(
            KeyedOneInputStreamOperatorTestHarness<TestKey, SinkChange<TestKey, TestTotal>, Void> h,
            long checkpointId)
            throws Exception {
        OperatorSubtaskState state = checkpoint(h, checkpointId);
        h.notifyOfCompletedCheckpoint(checkpointId);
        return state;
    }

    private SinkStoreFactory<TestKey, TestTotal> checked() {
        return PostgresStores.deployed(config, TestRows.MAPPING);
    }

    private static FlushableSink.Builder<TestKey, TestTotal> sink(
            SinkStoreFactory<TestKey, TestTotal> store) {
        return FlushableSink.<TestKey, TestTotal>builder()
                .store(store)
                .valueType(TypeInformation.of(TestTotal.class));
    }

    private static void upsert(
            KeyedOneInputStreamOperatorTestHarness<TestKey, SinkChange<TestKey, TestTotal>, Void> h,
            TestKey key,
            long total)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.upsert(key, new TestTotal(total, 1))));
    }
}
