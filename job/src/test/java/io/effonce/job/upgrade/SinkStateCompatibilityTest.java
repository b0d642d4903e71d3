package io.effonce.job.upgrade;

import static io.effonce.job.upgrade.SinkStateFixtures.CHECKPOINT;
import static io.effonce.job.upgrade.SinkStateFixtures.M1;
import static io.effonce.job.upgrade.SinkStateFixtures.M2;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import io.effonce.sink.testutils.InMemoryTable;
import java.net.URL;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sink state of every release restores into the current code: the full flush after the restore
 * SETs each live key's last value, tagged with the restored checkpoint, and nothing else.
 */
class SinkStateCompatibilityTest {

    @ParameterizedTest(name = "release {0}")
    @ValueSource(strings = {"0.1.0"})
    void theRestoredLastValuesAreWhatTheFlushWrites(String release) throws Exception {
        InMemoryTable<MerchantDayKey, DailyTotal> table = new InMemoryTable<>();
        try (var h = SinkStateFixtures.harness(table)) {
            h.setRestoredCheckpointId(CHECKPOINT);
            h.initializeState(fixture(release));
            h.open();
            assertThat(h.numKeyedStateEntries()).as("live keys").isEqualTo(2);
        }
        assertThat(table.values())
                .containsOnly(
                        Map.entry(M1, new DailyTotal(12_000, 4)),
                        Map.entry(M2, new DailyTotal(500, 1)));
        assertThat(table.row(M1).barrierTag()).isEqualTo(CHECKPOINT);
    }

    private static OperatorSubtaskState fixture(String release) throws Exception {
        String resource = "/savepoints/" + release + "/flushable-sink.snapshot";
        URL url = SinkStateCompatibilityTest.class.getResource(resource);
        assertThat(url).as("fixture %s on the test classpath", resource).isNotNull();
        return OperatorSnapshotUtil.readStateHandle(Path.of(url.toURI()).toString());
    }
}
