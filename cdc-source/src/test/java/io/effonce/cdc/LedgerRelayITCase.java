package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.effonce.cdc.testutils.ChangeAudit;
import io.effonce.cdc.testutils.Relays;
import io.effonce.cdc.testutils.TopicRecords;
import io.effonce.cdc.testutils.TopicRecords.Rec;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay against a real PostgreSQL (logical decoding) and a real Kafka broker. */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class LedgerRelayITCase {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerRelayITCase.class);

    @TempDir Path dir;

    @Test
    void everyChangeOfA20000PaymentWorkloadArrivesInCommitOrderPerPayment(
            PostgresEndpoint db, KafkaBootstrap kafka) {
        ChangeAudit audit = ChangeAudit.install(db);
        // Least privilege: the relay logs in as effonce_relay (LOGIN REPLICATION, SELECT on
        // payments) and uses the publication roles.sql created.
        Relays setup =
                new Relays(
                        db.withPasswordFor("effonce_relay", "relay-secret"),
                        kafka.servers(),
                        "workload",
                        dir);
        RelayOptions options = RelayCli.parse(setup.argsArray(), setup.env());
        try (LedgerRelay relay = LedgerRelay.start(options);
                TopicRecords topic = new TopicRecords(kafka.servers(), setup.topic())) {
            WorkloadReport report =
                    new LedgerWorkload(
                                    WorkloadOptions.builder()
                                            .count(20_000)
                                            .scope("wl")
                                            .seed(20)
                                            .build())
                            .run(db);
            long expected = audit.count();
            LOG.info("Workload committed {} changes: {}", expected, report.summary());
            assertThat(expected).isGreaterThan(40_000);

            await("every change of the workload in the topic")
                    .atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> changes(topic.poll()).size() >= expected);

            List<Rec> changes = changes(topic.poll());
            assertThat(changes).hasSize((int) expected);
            assertThat(perPayment(changes)).isEqualTo(audit.changes());
            assertSourcePositionsGrowPerPayment(changes);
            for (Rec r : changes) {
                JsonNode after = r.value().path("after");
                assertThat(r.key()).isEqualTo(after.path("payment_id").asText());
                for (String field :
                        List.of("payment_id", "state", "updated_at", "caller_id", "client_key")) {
                    assertThat(after.hasNonNull(field)).as(field + " of " + r).isTrue();
                }
                if (!after.path("state").asText().equals("VOID")) {
                    for (String field : List.of("merchant_id", "amount", "currency")) {
                        assertThat(after.hasNonNull(field)).as(field + " of " + r).isTrue();
                    }
                }
                assertThat(r.value().path("source").path("lsn").isNumber()).isTrue();
                assertThat(r.value().path("source").path("ts_ms").isNumber()).isTrue();
                assertThat(r.value().path("op").asText()).isIn("c", "u");
                assertThat(r.value().has("before")).isTrue();
            }
            JsonNode sample = changes.get(0).value().path("after");
            assertThat(sample.path("amount").isIntegralNumber()).isTrue();
            assertThat(sample.path("updated_at").asText()).endsWith("Z");
            assertThat(relay.metrics().changesPublished()).isEqualTo(expected);
            assertThat(relay.metrics().lastLsn()).isPositive();
            LOG.info("All {} changes arrived: {}", expected, relay.metrics());
        } finally {
            setup.dropSlot();
        }
    }

    @Test
    void heartbeatsKeepArrivingOnEveryPartitionWhileTheLedgerIsIdle(
            PostgresEndpoint db, KafkaBootstrap kafka) {
        Relays setup = new Relays(db, kafka.servers(), "idle", dir);
        RelayOptions options =
                RelayCli.parse(
                        setup.argsArray("--heartbeat-interval", "500ms", "--partitions", "3"),
                        setup.env());
        try (LedgerRelay relay = LedgerRelay.start(options);
                TopicRecords topic = new TopicRecords(kafka.servers(), setup.topic())) {
            await("4 heartbeats published")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> relay.metrics().heartbeatsPublished() >= 4);
            await("4 sorted heartbeats on every partition")
                    .atMost(Duration.ofMinutes(5))
                    .untilAsserted(
                            () -> {
                                List<Rec> all = topic.poll();
                                assertThat(all).allMatch(Rec::isHeartbeat);
                                Map<Integer, List<Long>> byPartition =
                                        all.stream()
                                                .collect(
                                                        Collectors.groupingBy(
                                                                Rec::partition,
                                                                Collectors.mapping(
                                                                        r ->
                                                                                r.value()
                                                                                        .path(
                                                                                                "ts_ms")
                                                                                        .asLong(),
                                                                        Collectors.toList())));
                                assertThat(byPartition.keySet()).containsExactlyInAnyOrder(0, 1, 2);
                                for (List<Long> ts : byPartition.values()) {
                                    assertThat(ts).hasSizeGreaterThanOrEqualTo(4).isSorted();
                                }
                            });
            Rec heartbeat = topic.poll().get(0);
            assertThat(heartbeat.key()).isEqualTo(Heartbeats.KEY);
            assertThat(heartbeat.heartbeatHeader()).isTrue();
            assertThat(heartbeat.value().path("ts_ms").asLong())
                    .isCloseTo(
                            System.currentTimeMillis(),
                            org.assertj.core.data.Offset.offset(60_000L));
            assertThat(relay.metrics().changesPublished()).isZero();
        } finally {
            setup.dropSlot();
        }
    }

    @Test
    void heartbeatsCanBeSwitchedOff(PostgresEndpoint db, KafkaBootstrap kafka) {
        Relays setup = new Relays(db, kafka.servers(), "quiet", dir);
        RelayOptions options =
                RelayCli.parse(setup.argsArray("--heartbeat-interval", "0"), setup.env());
        try (LedgerRelay relay = LedgerRelay.start(options);
                TopicRecords topic = new TopicRecords(kafka.servers(), setup.topic())) {
            await().during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(5))
                    .until(
                            () ->
                                    topic.poll().isEmpty()
                                            && relay.metrics().heartbeatsPublished() == 0);
        } finally {
            setup.dropSlot();
        }
    }

    static List<Rec> changes(List<Rec> records) {
        return records.stream().filter(r -> !r.isHeartbeat()).toList();
    }

    /** op:state per payment in topic order (one key lives on one partition). */
    static Map<String, List<String>> perPayment(List<Rec> changes) {
        Map<String, List<String>> byPayment = new HashMap<>();
        for (Rec r : changes) {
            byPayment
                    .computeIfAbsent(r.key(), k -> new ArrayList<>())
                    .add(
                            r.value().path("op").asText()
                                    + ":"
                                    + r.value().path("after").path("state").asText());
        }
        return byPayment;
    }

    static void assertSourcePositionsGrowPerPayment(List<Rec> changes) {
        Map<String, Long> last = new HashMap<>();
        for (Rec r : changes) {
            long lsn = r.value().path("source").path("lsn").asLong();
            Long before = last.put(r.key(), lsn);
            assertThat(before == null || before < lsn)
                    .as("source.lsn grows for %s (%s then %s)", r.key(), before, lsn)
                    .isTrue();
        }
    }
}
