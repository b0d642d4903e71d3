package io.effonce.cdc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Whether Kafka keeps every change it acknowledged to the relay when a broker is lost. The relay
 * marks a change processed in the ledger's slot once Kafka acknowledged it; a change Kafka then
 * loses is gone for good, since the ledger will not send it again. So a topic or a producer setting
 * under which an acknowledged record can be lost stops the relay at start-up.
 */
final class TopicDurability {

    /** The settings of one topic that decide what an acknowledgement promises. */
    record Topic(String name, int replicas, int minInSyncReplicas, boolean uncleanElection) {}

    private TopicDurability() {}

    /**
     * Why the operator's extra producer properties could lose an acknowledged change, or empty: the
     * relay publishes with {@code acks=all} and idempotence, and refuses to be told otherwise.
     */
    static Optional<String> weakProducerProperty(Map<String, String> properties) {
        String acks = properties.get(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !acks.equals("all") && !acks.equals("-1")) {
            return Optional.of(
                    "--kafka-property acks="
                            + acks
                            + " lets a broker acknowledge a change its followers do not have yet,"
                            + " and the relay then marks it processed in the slot. Fix: remove it;"
                            + " the relay always publishes with acks=all");
        }
        String idempotence = properties.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idempotence != null && !Boolean.parseBoolean(idempotence)) {
            return Optional.of(
                    "--kafka-property enable.idempotence="
                            + idempotence
                            + " lets a retried batch be written twice or out of order. Fix: remove"
                            + " it; the relay always publishes idempotently");
        }
        return Optional.empty();
    }

    /** Why {@code topic} could lose an acknowledged change, with the fix, or empty. */
    static Optional<String> refusal(Topic topic, String bootstrap) {
        List<String> reasons = new ArrayList<>();
        if (topic.uncleanElection()) {
            reasons.add(
                    TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG
                            + "=true: a replica that missed acknowledged changes may become the"
                            + " leader and drop them. Fix: "
                            + alter(topic, bootstrap, "unclean.leader.election.enable=false"));
        }
        if (topic.replicas() >= 2 && topic.minInSyncReplicas() < 2) {
            reasons.add(
                    TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG
                            + "="
                            + topic.minInSyncReplicas()
                            + " with "
                            + topic.replicas()
                            + " replicas: acks=all is then met by the leader alone, and losing"
                            + " that broker loses what it acknowledged. Fix: "
                            + alter(topic, bootstrap, "min.insync.replicas=2"));
        }
        if (reasons.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                "topic "
                        + topic.name()
                        + " could lose changes Kafka acknowledged: "
                        + String.join("; ", reasons));
    }

    /** What the operator should know about a topic that is safe but fragile, or empty. */
    static Optional<String> warning(Topic topic) {
        if (topic.replicas() == 1) {
            return Optional.of(
                    "Topic "
                            + topic.name()
                            + " has a single replica: the loss of its broker's disk loses"
                            + " acknowledged changes. Fine to try things out; in production use"
                            + " --replication-factor 3 with min.insync.replicas=2");
        }
        if (topic.minInSyncReplicas() >= topic.replicas()) {
            return Optional.of(
                    "Topic "
                            + topic.name()
                            + " needs all "
                            + topic.replicas()
                            + " replicas in sync (min.insync.replicas="
                            + topic.minInSyncReplicas()
                            + "): the relay stops publishing while any of its brokers is down."
                            + " Three replicas with min.insync.replicas=2 ride out one");
        }
        return Optional.empty();
    }

    /**
     * Why the relay could not raise {@code min.insync.replicas} on the replicated topic it created
     * (the brokers' default, 1, lets the leader alone acknowledge): most often its principal lacks
     * the right to alter topic configs. Names the cause, the right and the command that does it.
     */
    static String cannotRaiseMinInSyncReplicas(Topic topic, String bootstrap, Throwable cause) {
        return "topic "
                + topic.name()
                + " was created with "
                + topic.replicas()
                + " replicas and min.insync.replicas="
                + topic.minInSyncReplicas()
                + " (the brokers' default), under which Kafka can lose a change it acknowledged,"
                + " and raising it to 2 failed ("
                + cause
                + "). Fix: give the relay's principal ALTER_CONFIGS on the topic, or run "
                + alter(topic, bootstrap, "min.insync.replicas=2")
                + " (or set min.insync.replicas=2 on the brokers)";
    }

    private static String alter(Topic topic, String bootstrap, String config) {
        return "kafka-configs.sh --bootstrap-server "
                + bootstrap
                + " --alter --entity-type topics --entity-name "
                + topic.name()
                + " --add-config "
                + config;
    }
}
