package io.effonce.sink.internal;

import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.fresh;
import static io.effonce.sink.testutils.SinkHarnesses.restored;
import static io.effonce.sink.testutils.SinkHarnesses.sink;
import static io.effonce.sink.testutils.SinkHarnesses.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.testutils.InMemoryTable;
import org.junit.jupiter.api.Test;

/** A writer from a failed attempt that is still alive cannot write after the takeover. */
class FencingTest {

    private final InMemoryTable<String, Long> table = new InMemoryTable<>();

    @Test
    void aZombieWriterIsFencedAfterTheNewAttemptTakesItsKeyGroups() throws Exception {
        var zombie = fresh(sink(table).build());
        upsert(zombie, "m1", 12_000);
        var c1 = checkpoint(zombie, 1);

        try (var successor = restored(sink(table).build(), c1, 1, 1, 0)) {
            upsert(zombie, "m1", 99_999); // the old attempt wakes up and writes
            assertThatThrownBy(() -> zombie.prepareSnapshotPreBarrier(2))
                    .isInstanceOf(FencedException.class);
            assertThat(table.values()).containsEntry("m1", 12_000L);

            upsert(successor, "m1", 15_000);
            successor.prepareSnapshotPreBarrier(2);
            assertThat(table.values()).containsEntry("m1", 15_000L);
        }
        zombie.close();
    }
}
