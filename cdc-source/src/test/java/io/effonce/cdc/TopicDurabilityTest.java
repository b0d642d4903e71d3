package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.cdc.TopicDurability.Topic;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicDurabilityTest {

    private static final String KAFKA = "k1:9092,k2:9092";

    @Test
    void threeReplicasWithTwoInSyncAndCleanElectionsAreSafeAndQuiet() {
        Topic topic = new Topic("t", 3, 2, false);
        assertThat(TopicDurability.refusal(topic, KAFKA)).isEmpty();
        assertThat(TopicDurability.warning(topic)).isEmpty();
    }

    @Test
    void aReplicatedTopicAcknowledgedByItsLeaderAloneIsRefusedWithTheCommandThatFixesIt() {
        assertThat(TopicDurability.refusal(new Topic("t", 3, 1, false), KAFKA))
                .hasValueSatisfying(
                        m ->
                                assertThat(m)
                                        .contains("topic t could lose changes Kafka acknowledged")
                                        .contains("min.insync.replicas=1 with 3 replicas")
                                        .contains(
                                                "kafka-configs.sh --bootstrap-server "
                                                        + KAFKA
                                                        + " --alter --entity-type topics"
                                                        + " --entity-name t --add-config"
                                                        + " min.insync.replicas=2"));
    }

    @Test
    void aFailedRaiseOfMinInSyncReplicasNamesTheCauseTheRightAndTheCommand() {
        String message =
                TopicDurability.cannotRaiseMinInSyncReplicas(
                        new Topic("t", 3, 1, false),
                        KAFKA,
                        new IllegalStateException("Authorization failed."));
        assertThat(message)
                .contains("topic t was created with 3 replicas and min.insync.replicas=1")
                .contains("raising it to 2 failed (java.lang.IllegalStateException: Authorization")
                .contains("ALTER_CONFIGS")
                .contains(
                        "kafka-configs.sh --bootstrap-server "
                                + KAFKA
                                + " --alter --entity-type topics --entity-name t --add-config"
                                + " min.insync.replicas=2");
    }

    @Test
    void uncleanLeaderElectionIsRefusedWhateverTheReplicas() {
        for (int replicas = 1; replicas <= 3; replicas++) {
            assertThat(TopicDurability.refusal(new Topic("t", replicas, 2, true), KAFKA))
                    .as("%d replicas", replicas)
                    .hasValueSatisfying(
                            m ->
                                    assertThat(m)
                                            .contains("unclean.leader.election.enable=true")
                                            .contains(
                                                    "--add-config"
                                                            + " unclean.leader.election.enable=false"));
        }
    }

    @Test
    void aSingleReplicaIsAllowedForTryingOutWithAWarningThatSaysWhatProductionNeeds() {
        Topic single = new Topic("t", 1, 1, false);
        assertThat(TopicDurability.refusal(single, KAFKA)).isEmpty();
        assertThat(TopicDurability.warning(single))
                .hasValueSatisfying(
                        m ->
                                assertThat(m)
                                        .contains("single replica")
                                        .contains("--replication-factor 3"));
    }

    @Test
    void allReplicasInSyncIsSafeButTheWarningSaysOneBrokerDownStopsTheRelay() {
        Topic strict = new Topic("t", 2, 2, false);
        assertThat(TopicDurability.refusal(strict, KAFKA)).isEmpty();
        assertThat(TopicDurability.warning(strict))
                .hasValueSatisfying(
                        m -> assertThat(m).contains("while any of its brokers is down"));
    }

    @Test
    void weakerAcksOrIdempotenceOnTheCommandLineStopTheRelayNamingTheOption() {
        assertThatThrownBy(
                        () -> RelayCli.parse(new String[] {"--kafka-property", "acks=1"}, Map.of()))
                .hasMessageContaining("--kafka-property acks=1")
                .hasMessageContaining("Fix: remove it");
        assertThatThrownBy(
                        () ->
                                RelayCli.parse(
                                        new String[] {
                                            "--kafka-property", "enable.idempotence=false"
                                        },
                                        Map.of()))
                .hasMessageContaining("--kafka-property enable.idempotence=false");
        assertThat(TopicDurability.weakProducerProperty(Map.of("acks", "all", "linger.ms", "5")))
                .isEmpty();
        assertThat(TopicDurability.weakProducerProperty(Map.of("acks", "-1"))).isEmpty();
    }
}
