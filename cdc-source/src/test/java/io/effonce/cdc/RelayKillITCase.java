package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.testutils.ChangeAudit;
import io.effonce.cdc.testutils.Relays;
import io.effonce.cdc.testutils.TopicRecords;
import io.effonce.cdc.testutils.TopicRecords.Rec;
import io.effonce.testing.ChildJvm;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At-least-once under hard kills: the relay runs as a child JVM and is killed with SIGKILL (no
 * shutdown hook, no offset commit) twice during a workload, and once halts itself right after Kafka
 * acknowledged a batch and before the batch's positions were marked — the exact window between a
 * send and its offset commit. After the restarts every committed change is in the topic, in order
 * per payment; the re-sent copies are counted.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class RelayKillITCase {

    private static final Logger LOG = LoggerFactory.getLogger(RelayKillITCase.class);

    @TempDir Path dir;

    @Test
    void hardKillsDuringAWorkloadLoseNoChangeAndResendSome(
            PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        ChangeAudit audit = ChangeAudit.install(db);
        Relays setup = new Relays(db, kafka.servers(), "kills", dir);
        Path logs = Path.of("target", "relay-kill-logs");
        Map<String, Long> topicSizeAfter = new LinkedHashMap<>();
        try (TopicRecordsHolder holder = new TopicRecordsHolder()) {
            ChildJvm first = holder.add(setup.startProcess(logs.resolve("1.log")));
            await("the relay's replication slot active")
                    .atMost(Duration.ofMinutes(5))
                    .until(setup::slotActive);
            holder.topic = new TopicRecords(kafka.servers(), setup.topic());
            TopicRecords topic = holder.topic;

            CompletableFuture<Void> workload =
                    CompletableFuture.runAsync(
                            () ->
                                    new LedgerWorkload(
                                                    WorkloadOptions.builder()
                                                            .count(20_000)
                                                            .rate(1_500)
                                                            .scope("kill")
                                                            .seed(3)
                                                            .build())
                                            .run(db));

            // 1. SIGKILL while streaming.
            await("8,000 changes in the topic")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> topic.endOffsetTotal() >= 8_000);
            assertThat(first.kill()).isEqualTo(137);
            topicSizeAfter.put("SIGKILL while streaming", topic.endOffsetTotal());
            await("the killed relay's slot released")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> !setup.slotActive());

            // 2. Halt after Kafka acknowledged 2,000 changes, before their positions are marked.
            ChildJvm second =
                    holder.add(
                            setup.startProcess(
                                    logs.resolve("2.log"), "--test-halt-after-changes", "2000"));
            assertThat(second.waitFor(300)).as("halted by the test hook").isEqualTo(99);
            topicSizeAfter.put("halt between ack and offset commit", topic.endOffsetTotal());
            await("the halted relay's slot released")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> !setup.slotActive());

            // 3. SIGKILL again while catching up.
            ChildJvm third = holder.add(setup.startProcess(logs.resolve("3.log")));
            long before = topic.endOffsetTotal();
            await("8,000 more changes in the topic")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> topic.endOffsetTotal() >= before + 8_000);
            assertThat(third.kill()).isEqualTo(137);
            topicSizeAfter.put("SIGKILL while catching up", topic.endOffsetTotal());
            await("the killed relay's slot released")
                    .atMost(Duration.ofMinutes(5))
                    .until(() -> !setup.slotActive());

            // 4. A last relay runs to the end.
            ChildJvm last = holder.add(setup.startProcess(logs.resolve("4.log")));
            workload.get();
            long expected = audit.count();
            Set<String> distinct = new HashSet<>();
            await("every audited change in the topic")
                    .atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> {
                                for (Rec r : topic.poll()) {
                                    if (!r.isHeartbeat()) {
                                        distinct.add(id(r));
                                    }
                                }
                                return distinct.size() >= expected;
                            });
            // SIGTERM: the shutdown hook stops the engine cleanly; the JVM exits with 128 + 15.
            assertThat(last.stop()).isEqualTo(143);
            assertThat(last.output()).contains("Relay stopped");

            List<Rec> changes = LedgerRelayITCase.changes(topic.poll());
            Map<String, List<String>> firstCopies = firstCopiesPerPayment(changes);
            assertThat(firstCopies).isEqualTo(audit.changes());
            long duplicates = changes.size() - distinct.size();
            LOG.info(
                    "Kill test: {} committed changes, {} records, {} duplicates ({}%);"
                            + " topic size after each crash: {}",
                    expected,
                    changes.size(),
                    duplicates,
                    String.format("%.1f", 100.0 * duplicates / expected),
                    topicSizeAfter);
            assertThat(distinct).hasSize((int) expected);
            assertThat(duplicates).as("copies re-sent after the crashes").isPositive();
        } finally {
            setup.dropSlot();
        }
    }

    private static String id(Rec r) {
        return r.key() + "@" + r.value().path("source").path("lsn").asLong();
    }

    /** op:state per payment, first copy of each change only, in topic order. */
    private static Map<String, List<String>> firstCopiesPerPayment(List<Rec> changes) {
        Set<String> seen = new HashSet<>();
        Map<String, List<String>> byPayment = new HashMap<>();
        for (Rec r : changes) {
            if (seen.add(id(r))) {
                byPayment
                        .computeIfAbsent(r.key(), k -> new ArrayList<>())
                        .add(
                                r.value().path("op").asText()
                                        + ":"
                                        + r.value().path("after").path("state").asText());
            }
        }
        return byPayment;
    }

    /** Kills the relay processes and closes the topic reader however the test ends. */
    private static final class TopicRecordsHolder implements AutoCloseable {
        final List<ChildJvm> processes = new ArrayList<>();
        TopicRecords topic;

        ChildJvm add(ChildJvm p) {
            processes.add(p);
            return p;
        }

        @Override
        public void close() throws InterruptedException {
            for (ChildJvm p : processes) {
                p.close();
            }
            if (topic != null) {
                topic.close();
            }
        }
    }
}
