package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.testing.kafka.KafkaBrokers;
import io.effonce.testing.kafka.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Three brokers as processes; the leader of a partition killed with SIGKILL while an idempotent
 * {@code acks=all} producer sends into it: another replica leads, sends go on, the killed node
 * comes back on its data and catches up, and every acknowledged record is in the partition exactly
 * once.
 */
class KafkaBrokersITCase {

    private static final String TOPIC = "leader-killed";

    @Test
    void aKilledLeaderLosesNoAcknowledgedRecordAndCatchesUpAfterItsRestart() throws Exception {
        try (KafkaBrokers brokers = KafkaBrokers.start(3)) {
            String bootstrap = brokers.bootstrapServers();
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get();
            }
            int leader = brokers.leaderOf(TOPIC, 0);
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicBoolean stop = new AtomicBoolean();
            try (var producer = KafkaTopics.textProducer(bootstrap, Duration.ofSeconds(120))) {
                Thread sends =
                        new Thread(
                                () -> {
                                    for (int i = 0; !stop.get(); i++) {
                                        String v = "r-" + i;
                                        producer.send(
                                                new ProducerRecord<>(TOPIC, v, v),
                                                (meta, error) -> {
                                                    if (error == null) {
                                                        acknowledged.add(v);
                                                    }
                                                });
                                        try {
                                            Thread.sleep(2); // pacing: about 500 sends a second
                                        } catch (InterruptedException e) {
                                            return;
                                        }
                                    }
                                },
                                "producer-through-leader-kill");
                sends.start();
                await("1,000 records acknowledged before the kill")
                        .atMost(KafkaBrokers.TIMEOUT)
                        .until(() -> acknowledged.size() >= 1_000);

                brokers.kill(leader);
                int before = acknowledged.size();
                await("records acknowledged with node " + leader + " dead")
                        .atMost(KafkaBrokers.TIMEOUT)
                        .until(() -> acknowledged.size() > before + 1_000);
                assertThat(brokers.leaderOf(TOPIC, 0)).isNotEqualTo(leader);

                brokers.restart(leader);
                brokers.awaitFullyReplicated(TOPIC);
                int back = acknowledged.size();
                await("records acknowledged with node " + leader + " back in sync")
                        .atMost(KafkaBrokers.TIMEOUT)
                        .until(() -> acknowledged.size() > back + 1_000);
                stop.set(true);
                sends.join();
                producer.flush();
            }

            List<String> present =
                    KafkaTopics.readAll(bootstrap, TOPIC).stream()
                            .map(r -> new String(r.value(), StandardCharsets.UTF_8))
                            .toList();
            Set<String> missing = new HashSet<>(acknowledged);
            missing.removeAll(present);
            assertThat(missing).as("acknowledged but not in the partition").isEmpty();
            assertThat(present).as("records written twice").doesNotHaveDuplicates();
        }
    }
}
