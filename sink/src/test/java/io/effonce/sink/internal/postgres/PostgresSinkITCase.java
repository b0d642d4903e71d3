package io.effonce.sink.internal.postgres;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkChange;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.testutils.Claims;
import io.effonce.sink.testutils.IgnoringDeletes;
import io.effonce.sink.testutils.SinkHarnesses;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.sink.testutils.UtcDaysFinal;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The sink's restore flush and fresh-start rule against a real PostgreSQL. */
@ExtendWith(PostgresExtension.class)
class PostgresSinkITCase {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final TestKey M1 = new TestKey("m1", DAY, "EUR");
    private static final TestKey M2 = new TestKey("m2", DAY, "EUR");
    private static final long C = 7;

    private TotalsTable<TestKey> table;
    private PostgresStoreConfig config;

    @BeforeEach
    void emptyTable(PostgresEndpoint db) {
        table = TotalsTable.emptied(db);
        config = table.config();
    }

    @Test
    void seedTraceAgainstPostgresM2IsDeletedAndM1EndsAt15000() throws Exception {
        OperatorSubtaskState checkpointC;
        try (var v1 = open(sink().build())) {
            upsert(v1, M1, 12_000, 4);
            checkpointC = checkpoint(v1, C);
            upsert(v1, M1, 15_000, 5);
            upsert(v1, M2, 500, 1);
            v1.prepareSnapshotPreBarrier(C + 1);
            assertThat(table.totals()).containsEntry(M1, 15_000L).containsEntry(M2, 500L);
            assertThat(table.tagOf(M2)).isEqualTo(C);
        }
        try (var v2 = restore(sink().build(), checkpointC)) {
            assertThat(table.totals()).containsExactly(Map.entry(M1, 12_000L));
            assertThat(table.tagOf(M1)).isEqualTo(C);
            upsert(v2, M1, 15_000, 5);
            v2.prepareSnapshotPreBarrier(C + 1);
            assertThat(table.totals()).containsExactly(Map.entry(M1, 15_000L));
        }
    }

    @Test
    void withoutTheDeleteStepM2StaysInPostgres() throws Exception {
        OperatorSubtaskState checkpointC;
        try (var v1 = open(sink().build())) {
            upsert(v1, M1, 12_000, 4);
            checkpointC = checkpoint(v1, C);
            upsert(v1, M2, 500, 1);
            v1.prepareSnapshotPreBarrier(C + 1);
        }
        try (var v2 =
                restore(
                        sink().store(
                                        IgnoringDeletes.over(
                                                PostgresStores.deployed(config, TestRows.MAPPING)))
                                .build(),
                        checkpointC)) {
            assertThat(table.totals()).containsEntry(M2, 500L);
        }
    }

    @Test
    void aFreshStartOnANonEmptyTableIsRefused() throws Exception {
        try (var first = open(sink().build())) {
            upsert(first, M1, 1, 1);
            first.prepareSnapshotPreBarrier(1);
        }
        assertThatThrownBy(() -> open(sink().build()))
                .hasMessageContaining("merchant_daily_totals")
                .hasMessageContaining("sink.reset-on-fresh-start");
        try (var reset = open(sink().resetOnFreshStart(true).build())) {
            assertThat(table.totals()).isEmpty();
        }
    }

    @Test
    void aFlushDeletesOnlyInItsOwnKeyGroups() {
        // Two writers of one table, as two subtasks: each deletes only what lies in its range.
        KeyGroupSpan low = new KeyGroupSpan(0, 63);
        KeyGroupSpan high = new KeyGroupSpan(64, 127);
        try (var a = new PostgresSinkStore<>(config, TestRows.MAPPING);
                var b = new PostgresSinkStore<>(config, TestRows.MAPPING)) {
            Claims.take(a, low, "job", "a");
            Claims.take(b, high, "job", "b");
            a.write(java.util.List.of(new StoredRow<>(M1, new TestTotal(1, 1), 10, C)));
            b.write(java.util.List.of(new StoredRow<>(M2, new TestTotal(2, 1), 100, C)));
            assertThat(a.keysTaggedSince(C)).containsExactly(M1);
            // M2's tombstone claims a key group of a's range; its row lies in b's and stays.
            a.delete(
                    java.util.List.of(
                            StoredRow.tombstone(M1, 10, C), StoredRow.tombstone(M2, 10, C)));
            assertThat(table.totals()).containsExactly(Map.entry(M2, 2L));
        }
    }

    @Test
    void rowsPostgresCannotHoldAreQuarantinedAndEveryOtherKeyIsWritten() throws Exception {
        // Values the decoder refuses at the door, reaching the sink anyway: a merchant id too
        // large for the primary key's index (54000) and one with a NUL character (22021).
        TestKey huge = new TestKey("m".repeat(1 << 20), DAY, "EUR");
        TestKey nul = new TestKey("m\u0000x", DAY, "EUR");
        OperatorSubtaskState state;
        try (var h = open(sink().build())) {
            upsert(h, M1, 100, 1);
            upsert(h, huge, 5, 1);
            upsert(h, nul, 6, 1);
            upsert(h, M2, 200, 2);
            state = checkpoint(h, C);
            assertThat(table.totals()).containsOnly(Map.entry(M1, 100L), Map.entry(M2, 200L));
        }
        List<TotalsTable.Quarantined> quarantined = table.quarantined();
        assertThat(quarantined)
                .hasSize(2)
                .anySatisfy(q -> assertThat(q.reason()).startsWith("sink-refused: SQLSTATE 54000"))
                .anySatisfy(q -> assertThat(q.reason()).startsWith("sink-refused: SQLSTATE 22"))
                .allSatisfy(q -> assertThat(q.rawValue()).hasSizeLessThanOrEqualTo(4096));

        // The restore's flush SETs the refused keys again: quarantined again (no new row), and
        // the restore goes through instead of failing every time.
        try (var h = restore(sink().build(), state)) {
            upsert(h, M1, 150, 2);
            h.prepareSnapshotPreBarrier(C + 1);
            assertThat(table.totals()).containsOnly(Map.entry(M1, 150L), Map.entry(M2, 200L));
        }
        assertThat(table.quarantined()).hasSize(2);
    }

    @Test
    void theDeleteOfAKeyPostgresCannotHoldIsQuarantinedNotACrashLoop() throws Exception {
        TestKey nul = new TestKey("m\u0000x", DAY, "EUR");
        // dead_letters is shared by the class's tests; the key may be quarantined there already.
        int before = table.quarantined().size();
        OperatorSubtaskState state;
        try (var h = open(sink().build())) {
            upsert(h, M1, 100, 1);
            upsert(h, nul, 6, 1);
            upsert(h, M2, 200, 2);
            state = checkpoint(h, C);
        }
        // The retraction of the refused key, and of M1 beside it, in every replay of it.
        for (int replay = 0; replay < 2; replay++) {
            try (var h = restore(sink().build(), state)) {
                h.processElement(new StreamRecord<>(SinkChange.delete(nul)));
                h.processElement(new StreamRecord<>(SinkChange.delete(M1)));
                h.prepareSnapshotPreBarrier(C + 1);
                assertThat(table.totals()).containsOnly(Map.entry(M2, 200L));
            }
        }
        assertThat(table.quarantined())
                .as("one dead letter for the key, whichever of its SET and delete were refused")
                .hasSizeBetween(before, before + 1)
                .anySatisfy(q -> assertThat(q.reason()).startsWith("sink-refused: SQLSTATE 22"));
    }

    /**
     * The committed contract on PostgreSQL: staged at the barrier, moved when the checkpoint
     * completes (announced on {@code effonce_committed}), untouched by a recovery's flush, rolled
     * back exactly by an older savepoint's restore.
     */
    @Test
    void committedTotalsMoveOnlyWhenACheckpointCompletes(PostgresEndpoint db) throws Exception {
        OperatorSubtaskState checkpoint1;
        try (Connection listener = db.connect()) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + PostgresSinkStore.COMMITTED_CHANNEL);
            }
            try (var run = open(sink().build())) {
                upsert(run, M1, 100, 1);
                checkpoint1 = checkpoint(run, 1);
                assertThat(table.committed()).isEmpty();
                run.notifyOfCompletedCheckpoint(1);
                assertThat(table.committed()).containsExactly(Map.entry(M1, 100L));

                upsert(run, M1, 300, 3);
                upsert(run, M2, 50, 1);
                checkpoint(run, 3);
                run.notifyOfCompletedCheckpoint(3);
                assertThat(table.committed())
                        .containsExactly(Map.entry(M1, 300L), Map.entry(M2, 50L));

                upsert(run, M1, 400, 4);
                checkpoint(run, 4); // the erased run's: staged, never completed
                assertThat(table.totals()).containsEntry(M1, 400L);
            }
            PGConnection pg = listener.unwrap(PGConnection.class);
            List<String> announced = new java.util.ArrayList<>();
            await("the commit of checkpoint 3 announced on effonce_committed")
                    .atMost(Duration.ofMinutes(1))
                    .until(
                            () -> {
                                for (PGNotification n : pg.getNotifications(100)) {
                                    announced.add(n.getParameter());
                                }
                                return announced.stream()
                                        .anyMatch(p -> p.matches(".*\"checkpoint\" ?: ?3\\b.*"));
                            });
            assertThat(announced.get(0))
                    .matches(".*\"table\" ?: ?\"merchant_daily_totals\".*")
                    .matches(".*\"key_groups\" ?: ?\"0\\.\\.127\".*");
        }

        // A recovery from checkpoint 3 would not move committed; an operator's restore of the
        // older checkpoint 1 rolls it back to exactly checkpoint 1's values.
        try (var restored = restoreFrom(sink().build(), checkpoint1, 1)) {
            assertThat(table.totals()).containsExactly(Map.entry(M1, 100L));
            assertThat(table.committed()).containsExactly(Map.entry(M1, 100L));
        }
    }

    /**
     * Each commit records how far the committed totals are complete (the watermark at the
     * checkpoint's barrier, minus the horizon: a change that far behind can still be accepted after
     * the barrier) and so which days are final; the views give one answer per table and per key.
     * Restoring an older savepoint forgets how far the later checkpoint went.
     */
    @Test
    void progressSaysHowFarCommittedTotalsAreCompleteAndWhichDaysAreFinal(PostgresEndpoint db)
            throws Exception {
        OffsetDateTime nextDay01h = OffsetDateTime.parse("2026-11-30T01:00:00Z");
        OffsetDateTime nextDay02h = OffsetDateTime.parse("2026-11-30T02:00:00Z");
        OperatorSubtaskState checkpoint1;
        try (var run = open(sink().progress(UtcDaysFinal.RULE).build())) {
            upsert(run, M1, 100, 1);
            run.processWatermark(nextDay01h.toInstant().toEpochMilli());
            checkpoint1 = checkpoint(run, 1);
            run.notifyOfCompletedCheckpoint(1);
            assertThat(table.progress())
                    .isEqualTo(
                            new TotalsTable.CommittedProgress(
                                    1, nextDay01h.minusHours(2), DAY.minusDays(1), null, "Z"));
            assertThat(table.finalDays()).containsExactly(Map.entry(M1, false));

            run.processWatermark(nextDay02h.toInstant().toEpochMilli());
            checkpoint(run, 2);
            assertThat(table.finalDays())
                    .as("final only once a checkpoint at that watermark completed")
                    .containsExactly(Map.entry(M1, false));
            run.notifyOfCompletedCheckpoint(2);
            assertThat(table.progress().finalThrough()).isEqualTo(DAY);
            assertThat(table.finalDays()).containsExactly(Map.entry(M1, true));
        }

        try (var restored =
                restoreFrom(sink().progress(UtcDaysFinal.RULE).build(), checkpoint1, 1)) {
            assertThat(table.progress())
                    .as("savepoint 1 restored after checkpoint 2: how far it went is unknown")
                    .isEqualTo(new TotalsTable.CommittedProgress(1, null, null, 1L, "Z"));
            assertThat(table.finalDays()).containsExactly(Map.entry(M1, false));
        }
    }

    /**
     * A fresh start that finds no row in the range (a query that retracted every one) begins its
     * own progress: the earlier run's watermark and final days speak of totals it has not counted.
     */
    @Test
    void aFreshStartOnARangeWithoutRowsDoesNotInheritTheEarlierRunsProgress() throws Exception {
        try (var earlier = open(sink().progress(UtcDaysFinal.RULE).build())) {
            upsert(earlier, M1, 100, 1);
            earlier.processWatermark(
                    OffsetDateTime.parse("2026-11-30T02:00:00Z").toInstant().toEpochMilli());
            checkpoint(earlier, 1);
            earlier.notifyOfCompletedCheckpoint(1);
            assertThat(table.progress().finalThrough()).isEqualTo(DAY);
            earlier.processElement(new StreamRecord<>(SinkChange.delete(M1)));
            checkpoint(earlier, 2);
            earlier.notifyOfCompletedCheckpoint(2);
            assertThat(table.totals()).isEmpty();
            assertThat(table.committed()).isEmpty();
        }
        try (var fresh = open(sink().progress(UtcDaysFinal.RULE).build())) {
            checkpoint(fresh, 1);
            fresh.notifyOfCompletedCheckpoint(1);
            assertThat(table.progress())
                    .as("no watermark yet, so nothing is complete and no day final")
                    .satisfies(p -> assertThat(p.completeThrough()).isNull())
                    .satisfies(p -> assertThat(p.finalThrough()).isNull());
        }
    }

    /** The recount's table is not the stream's: a restore flush and a reset leave it alone. */
    @Test
    void theRestoreFlushAndAResetLeaveTheRecountUntouched(PostgresEndpoint db) throws Exception {
        table.execute(
                "INSERT INTO merchant_daily_totals_recount (merchant_id, day, currency,"
                        + " total_minor, payments, late_events) VALUES ('m1', '2026-11-29',"
                        + " 'EUR', 3700, 3, 1), ('m9', '2026-11-29', 'EUR', 40, 1, 1)");
        OperatorSubtaskState checkpointC;
        try (var v1 = open(sink().build())) {
            upsert(v1, M1, 12_000, 4);
            checkpointC = checkpoint(v1, C);
            upsert(v1, M2, 500, 1);
            v1.prepareSnapshotPreBarrier(C + 1);
        }
        try (var v2 = restore(sink().build(), checkpointC)) {
            assertThat(table.totals()).containsExactly(Map.entry(M1, 12_000L));
        }
        try (var reset = open(sink().resetOnFreshStart(true).build())) {
            assertThat(table.totals()).isEmpty();
        }
        assertThat(table.recount())
                .containsExactly(
                        Map.entry(M1, 3_700L), Map.entry(new TestKey("m9", DAY, "EUR"), 40L));
    }

    private FlushableSink.Builder<TestKey, TestTotal> sink() {
        return FlushableSink.<TestKey, TestTotal>builder()
                .store(PostgresStores.deployed(config, TestRows.MAPPING))
                .valueType(TypeInformation.of(TestTotal.class));
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    TestKey, SinkChange<TestKey, TestTotal>, Void>
            open(FlushableSink<TestKey, TestTotal> sink) throws Exception {
        return SinkHarnesses.opened(sink, TypeInformation.of(TestKey.class));
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    TestKey, SinkChange<TestKey, TestTotal>, Void>
            restore(FlushableSink<TestKey, TestTotal> sink, OperatorSubtaskState state)
                    throws Exception {
        return restoreFrom(sink, state, C);
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    TestKey, SinkChange<TestKey, TestTotal>, Void>
            restoreFrom(
                    FlushableSink<TestKey, TestTotal> sink,
                    OperatorSubtaskState state,
                    long checkpointId)
                    throws Exception {
        return SinkHarnesses.restoredFrom(
                sink, TypeInformation.of(TestKey.class), state, checkpointId);
    }

    private static void upsert(
            KeyedOneInputStreamOperatorTestHarness<TestKey, SinkChange<TestKey, TestTotal>, Void> h,
            TestKey key,
            long total,
            long payments)
            throws Exception {
        h.processElement(
                new StreamRecord<>(SinkChange.upsert(key, new TestTotal(total, payments))));
    }
}
