package io.effonce.job;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.testutils.SideTableRows;
import io.effonce.job.testutils.TestEndpoints;
import io.effonce.job.testutils.Topics;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A skewed snapshot: one partition holds a few history rows and then the present, the other a long
 * history in primary-key order (random in time). The first partition's source subtask reaches the
 * present almost at once; the second reads its history with event time held, and must not be left
 * behind: not by its own newest history row, not by the other partition's present, not by a short
 * idleness. The verdict does not depend on speed: nothing is late however the partitions
 * interleave, and a first fetch later than the idleness does not matter either, up to {@code
 * watermark.start-hold} (30 s; {@code LedgerWatermarksTest} shows the hold). (The 1,000,000-payment
 * bootstrap, {@code -Deffonce.bootstrap.payments} in it-tests, is what showed the subtask-idleness
 * case {@code LedgerWatermarks.HELD} fixes.)
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class SnapshotHoldITCase {

    private static final Instant HISTORY = Instant.parse("2026-10-01T00:00:00Z");
    private static final Instant PRESENT = Instant.parse("2026-11-20T00:00:00Z");
    private static final int LONG_HISTORY = 60_000;

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    @Test
    void aPartitionStillInItsHistoryIsNeverLeftBehindByOneInThePresent(
            PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        String topic = "skewed.public.payments";
        KafkaTopics.create(kafka.servers(), topic, 2);
        Map<MerchantDayKey, Long> expected = new HashMap<>();
        // Partition 1: ten history rows, then the present.
        List<byte[]> quick = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            quick.add(row("q" + i, "r", HISTORY.plus(Duration.ofDays(i)), expected));
        }
        for (int i = 0; i < 100; i++) {
            quick.add(row("n" + i, "c", PRESENT.plusSeconds(60L * i), expected));
        }
        // Partition 0: a long history over 40 days in primary-key order (a permutation of time
        // order, as a snapshot sends it), then the present.
        List<byte[]> slow = new ArrayList<>();
        for (int i = 0; i < LONG_HISTORY; i++) {
            long slot = (i * 7_919L) % LONG_HISTORY;
            slow.add(row("h" + i, "r", HISTORY.plusSeconds(57L * slot), expected));
        }
        slow.add(row("m0", "c", PRESENT, expected));
        Topics.publishRaw(kafka.servers(), topic, keyOf(1), quick);
        Topics.publishRaw(kafka.servers(), topic, keyOf(0), slow);

        Configuration config = new Configuration();
        config.set(JobOptions.KAFKA_BOOTSTRAP, kafka.servers());
        config.set(JobOptions.TOPIC, List.of(topic));
        config.set(JobOptions.IDLENESS, Duration.ofMillis(100));
        TestEndpoints.runBounded(config, db, "skewed-snapshot");

        assertThat(SideTableRows.count(db, "SELECT count(*) FROM late_events"))
                .as("history judged late")
                .isZero();
        assertThat(new TotalsTable<>(db, MerchantDayRows.MAPPING).totals()).isEqualTo(expected);
    }

    private static byte[] row(
            String id, String op, Instant at, Map<MerchantDayKey, Long> expected) {
        String merchant = "m" + Math.floorMod(id.hashCode(), 7);
        expected.merge(
                new MerchantDayKey(merchant, at.atZone(ZoneOffset.UTC).toLocalDate(), "EUR"),
                100L,
                Long::sum);
        String value =
                schemasOff(after(id, merchant, 100, "EUR", "SUCCEEDED", at.toString()))
                        .replace("\"op\":\"u\"", "\"op\":\"" + op + "\"");
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /** A key Kafka's default partitioner sends to {@code partition} of two. */
    private static String keyOf(int partition) {
        for (int i = 0; ; i++) {
            String key = "k" + i;
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            if (Utils.toPositive(Utils.murmur2(bytes)) % 2 == partition) {
                return key;
            }
        }
    }
}
