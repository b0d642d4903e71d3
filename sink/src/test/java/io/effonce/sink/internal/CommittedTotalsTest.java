package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.fresh;
import static io.effonce.sink.testutils.SinkHarnesses.restored;
import static io.effonce.sink.testutils.SinkHarnesses.retire;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.testutils.InMemoryTable;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * The committed read contract: each key's value as of the latest completed checkpoint. It moves
 * only when a checkpoint completes, so a recovery — which sets the live table back to the restored
 * checkpoint and replays — never shows in it; only an operator's restore of an older savepoint
 * rolls it back, exactly to that savepoint's values.
 */
class CommittedTotalsTest {

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    @Test
    void committedValuesAreThoseOfTheLatestCompletedCheckpoint() throws Exception {
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 100);
            upsert(h, "m2", 7);
            checkpoint(h, 1);
            assertThat(table.committedValues()).as("checkpoint 1 not complete yet").isEmpty();
            h.notifyOfCompletedCheckpoint(1);
            assertThat(table.committedValues()).containsExactly(entry("m1", 100), entry("m2", 7));

            upsert(h, "m1", 150);
            h.prepareSnapshotPreBarrier(2);
            assertThat(table.values()).containsEntry("m1", 150L);
            assertThat(table.committedValues()).containsEntry("m1", 100L);

            h.notifyOfCompletedCheckpoint(2);
            assertThat(table.committedValues()).containsExactly(entry("m1", 150), entry("m2", 7));
            assertThat(table.committedCheckpoints())
                    .containsEntry("m1", 2L)
                    .containsEntry("m2", 1L);
            assertThat(table.staged()).isEmpty();
        }
    }

    @Test
    void aNotificationThatNeverCameIsCaughtUpByTheNext() throws Exception {
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 100);
            checkpoint(h, 1); // completes, but its notification is lost
            upsert(h, "m2", 5);
            checkpoint(h, 2);
            h.notifyOfCompletedCheckpoint(2);
            assertThat(table.committedValues()).containsExactly(entry("m1", 100), entry("m2", 5));
        }
    }

    @Test
    void aRetiredKeyKeepsItsLastCommittedValueAsItsFinalOne() throws Exception {
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 100);
            checkpoint(h, 1);
            h.notifyOfCompletedCheckpoint(1);
            retire(h, "m1");
            checkpoint(h, 2);
            h.notifyOfCompletedCheckpoint(2);
            assertThat(table.committedValues()).containsExactly(entry("m1", 100));
        }
    }

    /**
     * The key's last change and its retirement between the same two barriers (the watermark passed
     * the day's end right after its last payment): the committed value is that last change.
     */
    @Test
    void aKeyChangedAndRetiredBetweenTwoBarriersCommitsItsLastValue() throws Exception {
        try (var h = fresh(sink(table).build())) {
            upsert(h, "m1", 100);
            checkpoint(h, 1);
            h.notifyOfCompletedCheckpoint(1);
            upsert(h, "m1", 250);
            retire(h, "m1");
            checkpoint(h, 2);
            h.notifyOfCompletedCheckpoint(2);
            assertThat(table.values()).containsExactly(entry("m1", 250));
            assertThat(table.committedValues()).containsExactly(entry("m1", 250));
        }
    }

    /**
     * A crash after checkpoint 1: the erased run wrote m1 = 150 and m2 = 9 live, staged them at
     * barrier 2 (which never completed). The restore sets the live table back — it steps back —
     * while the committed table never showed the erased values and does not move.
     */
    @Test
    void aRecoveryStepsTheLiveTableBackButNeverTheCommittedOne() throws Exception {
        OperatorSubtaskState checkpoint1;
        try (var run = fresh(sink(table).build())) {
            upsert(run, "m1", 100);
            checkpoint1 = checkpoint(run, 1);
            run.notifyOfCompletedCheckpoint(1);
            upsert(run, "m1", 150);
            upsert(run, "m2", 9);
            checkpoint(run, 2); // staged, never completed
            assertThat(table.values()).containsExactly(entry("m1", 150), entry("m2", 9));
        }
        Map<String, Long> committedBefore = table.committedValues();

        try (var restored = restored(sink(table).build(), checkpoint1, 1, 1, 0)) {
            assertThat(table.values())
                    .as("the live table steps back to checkpoint 1")
                    .containsExactly(entry("m1", 100));
            assertThat(table.committedValues())
                    .as("the committed table never showed the erased run")
                    .isEqualTo(committedBefore)
                    .containsExactly(entry("m1", 100));
            assertThat(table.staged()).as("the erased run's staged values are gone").isEmpty();

            upsert(restored, "m1", 150); // the replay
            checkpoint(restored, 2);
            restored.notifyOfCompletedCheckpoint(2);
            assertThat(table.committedValues()).containsExactly(entry("m1", 150));
        }
    }

    @Test
    void aRestoreCommitsWhatItsCheckpointStagedWhenTheNotificationWasLost() throws Exception {
        OperatorSubtaskState checkpoint1;
        try (var run = fresh(sink(table).build())) {
            upsert(run, "m1", 100);
            checkpoint1 = checkpoint(run, 1); // completes; the task dies before the notification
        }
        assertThat(table.committedValues()).isEmpty();

        try (var restored = restored(sink(table).build(), checkpoint1, 1, 1, 0)) {
            assertThat(table.committedValues()).containsExactly(entry("m1", 100));
        }
    }

    /**
     * The operator restores savepoint 1 (m1 = 100) after checkpoint 3 committed m1 = 300 and m2 =
     * 50: committed is rolled back exactly to the savepoint — m1 to 100, m2 (which the savepoint
     * does not hold) removed.
     */
    @Test
    void restoringAnOlderSavepointRollsCommittedBackExactlyToIt() throws Exception {
        OperatorSubtaskState savepoint1;
        try (var run = fresh(sink(table).build())) {
            upsert(run, "m1", 100);
            savepoint1 = checkpoint(run, 1);
            run.notifyOfCompletedCheckpoint(1);
            upsert(run, "m1", 300);
            upsert(run, "m2", 50);
            checkpoint(run, 3);
            run.notifyOfCompletedCheckpoint(3);
            assertThat(table.committedValues()).containsExactly(entry("m1", 300), entry("m2", 50));
        }

        try (var restored = restored(sink(table).build(), savepoint1, 1, 1, 0)) {
            assertThat(table.committedValues()).containsExactly(entry("m1", 100));
            assertThat(table.committedCheckpoints()).containsEntry("m1", 1L);
        }
    }

    private static Map.Entry<String, Long> entry(String key, long value) {
        return Map.entry(key, value);
    }
}
