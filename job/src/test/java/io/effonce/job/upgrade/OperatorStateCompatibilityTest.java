package io.effonce.job.upgrade;

import static io.effonce.job.upgrade.OperatorStateFixtures.EV_1;
import static io.effonce.job.upgrade.OperatorStateFixtures.EV_2;
import static io.effonce.job.upgrade.OperatorStateFixtures.FLOOR;
import static io.effonce.job.upgrade.OperatorStateFixtures.change;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.effonce.dedup.LateCopy;
import io.effonce.job.decode.PaymentChange;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operator state of every release restores into the current code: keys, values, timers and the
 * watermark floor, and the operators go on from them. A release that cannot restore an older one's
 * state needs a deliberate, documented migration (job/README.md, "Upgrades"); a renamed state, a
 * changed serializer or a Kryo fallback fails here first.
 */
class OperatorStateCompatibilityTest {

    @ParameterizedTest(name = "release {0}")
    @ValueSource(strings = {"0.1.0"})
    void dedupStateRestoresWithItsIdsTimersAndFloor(String release) throws Exception {
        try (var h = OperatorStateFixtures.dedup(fixture(release, "dedup.snapshot"))) {
            assertThat(h.numKeyedStateEntries()).as("remembered ids").isEqualTo(1);
            assertThat(h.numEventTimeTimers()).as("expiry timers").isEqualTo(1);

            PaymentChange fresh = change("pay_9", "m1", 10, FLOOR + 1);
            h.processElement(new StreamRecord<>(EV_2, EV_2.eventTimeMillis())); // duplicate
            h.processElement(new StreamRecord<>(EV_1, EV_1.eventTimeMillis())); // below floor
            h.processElement(new StreamRecord<>(fresh, fresh.eventTimeMillis()));

            assertThat(h.extractOutputValues()).containsExactly(fresh);
            assertThat(h.getSideOutput(LateCopy.tag(TypeInformation.of(PaymentChange.class))))
                    .extracting(StreamRecord::getValue)
                    .extracting(LateCopy::record, LateCopy::floor)
                    .containsExactly(tuple(EV_1, FLOOR));
        }
    }

    private static OperatorSubtaskState fixture(String release, String name) throws Exception {
        String resource = "/savepoints/" + release + "/" + name;
        URL url = OperatorStateCompatibilityTest.class.getResource(resource);
        assertThat(url).as("fixture %s on the test classpath", resource).isNotNull();
        return OperatorSnapshotUtil.readStateHandle(path(url).toString());
    }

    private static Path path(URL url) throws URISyntaxException {
        return Path.of(url.toURI());
    }
}
