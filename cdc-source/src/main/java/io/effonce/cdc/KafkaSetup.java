package io.effonce.cdc;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Kafka client settings, the reachability check and the topic: created if missing. */
public final class KafkaSetup {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaSetup.class);

    /**
     * The broker stamps each record with its own clock when it appends it (LogAppendTime). The job
     * bounds every change's and heartbeat's event time by that stamp, so a wrong clock on an
     * application server or on the relay's host cannot move event time into the future.
     */
    static final Map<String, String> TOPIC_CONFIGS =
            Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");

    private KafkaSetup() {}

    /**
     * Reads the topic's settings once: refuses one under which an acknowledged change can be lost
     * (after raising {@code min.insync.replicas} to 2 on a replicated topic the relay has just
     * created), warns of a single replica and of CreateTime stamps.
     */
    private static void checkTopicConfigs(
            Admin admin, RelayOptions o, TopicDescription d, boolean created, int timeoutMs)
            throws InterruptedException, ExecutionException, TimeoutException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, o.topic());
        Config configs;
        try {
            configs =
                    admin.describeConfigs(List.of(resource))
                            .all()
                            .get(timeoutMs, TimeUnit.MILLISECONDS)
                            .get(resource);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn(
                    "Cannot read the settings of topic {} ({}); its durability and timestamp type"
                            + " are not checked",
                    o.topic(),
                    e.toString());
            return;
        }
        TopicDurability.Topic topic =
                new TopicDurability.Topic(
                        o.topic(),
                        d.partitions().get(0).replicas().size(),
                        Integer.parseInt(
                                value(configs, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1")),
                        Boolean.parseBoolean(
                                value(
                                        configs,
                                        TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG,
                                        "false")));
        if (created && topic.replicas() >= 2 && topic.minInSyncReplicas() < 2) {
            try {
                admin.incrementalAlterConfigs(
                                Map.of(
                                        resource,
                                        List.of(
                                                new AlterConfigOp(
                                                        new ConfigEntry(
                                                                TopicConfig
                                                                        .MIN_IN_SYNC_REPLICAS_CONFIG,
                                                                "2"),
                                                        AlterConfigOp.OpType.SET))))
                        .all()
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // Not "Kafka did not answer": it answered the describe just before.
                throw new RelayStartupException(
                        TopicDurability.cannotRaiseMinInSyncReplicas(
                                topic,
                                o.kafkaBootstrap,
                                e instanceof ExecutionException ? e.getCause() : e),
                        e);
            }
            LOG.info(
                    "Set min.insync.replicas=2 on topic {} (the brokers' default was {})",
                    o.topic(),
                    topic.minInSyncReplicas());
            topic =
                    new TopicDurability.Topic(
                            topic.name(), topic.replicas(), 2, topic.uncleanElection());
        }
        Optional<String> refusal = TopicDurability.refusal(topic, o.kafkaBootstrap);
        if (refusal.isPresent()) {
            throw new RelayStartupException(refusal.get());
        }
        TopicDurability.warning(topic).ifPresent(LOG::warn);
        String stamps = value(configs, TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "(unknown)");
        if (!"LogAppendTime".equals(stamps)) {
            LOG.warn(
                    "Topic {} has {}={}: its record timestamps come from the relay host's clock, so"
                            + " the job's event-time bound (event-time.tolerance) cannot catch a"
                            + " relay clock that runs ahead. Fix: kafka-configs --alter --topic {}"
                            + " --add-config {}=LogAppendTime",
                    o.topic(),
                    TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
                    stamps,
                    o.topic(),
                    TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
        }
    }

    private static String value(Config configs, String name, String absent) {
        ConfigEntry entry = configs.get(name);
        return entry == null || entry.value() == null ? absent : entry.value();
    }

    /**
     * Defaults of every client the relay makes (the operator's properties win): against a broker
     * that refuses connections the clients' default metadata recovery rebootstraps in a tight loop
     * that skips the reconnect backoff (50 MB of log lines in 10 s, measured); without it,
     * reconnect attempts back off up to 5 s. The job's clients start from the same (job's
     * KafkaClientDefaults).
     */
    private static final Map<String, Object> QUIET_WHEN_UNREACHABLE =
            Map.of("metadata.recovery.strategy", "none", "reconnect.backoff.max.ms", 5000);

    /** Common client settings: bootstrap plus the operator's extra properties. */
    static Map<String, Object> clientConfig(RelayOptions o) {
        Map<String, Object> config = new HashMap<>(QUIET_WHEN_UNREACHABLE);
        config.putAll(o.kafkaProperties);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, o.kafkaBootstrap);
        return config;
    }

    /**
     * Producer settings; acks=all and idempotence are enforced whatever the extra properties say.
     */
    static Map<String, Object> producerConfig(RelayOptions o) {
        return producerConfig(
                o.kafkaBootstrap, o.kafkaProperties, "effonce-relay-" + o.topicPrefix);
    }

    /**
     * Producer settings for anything that publishes into the ledger's topic: the operator's extra
     * properties, then acks=all and idempotence whatever they say, byte-array keys and values.
     */
    public static Map<String, Object> producerConfig(
            String bootstrap, Map<String, String> extraProperties, String clientId) {
        Map<String, Object> config = new HashMap<>(QUIET_WHEN_UNREACHABLE);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.putAll(extraProperties);
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        for (String weak :
                List.of(ProducerConfig.ACKS_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)) {
            if (config.containsKey(weak)) {
                LOG.warn(
                        "Ignoring Kafka property {}: publishing into the topic always uses acks=all"
                                + " and idempotence",
                        weak);
            }
        }
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return config;
    }

    /**
     * Checks Kafka answers, creates the topic with the configured partitions if it is missing, and
     * returns the topic's partition numbers.
     */
    static List<Integer> prepareTopic(RelayOptions o) {
        Map<String, Object> config = clientConfig(o);
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, o.kafkaTimeout.toMillis());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMs, 30_000));
        try (Admin admin = Admin.create(config)) {
            try {
                admin.describeCluster().clusterId().get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw unreachable(o, e);
            }
            Optional<Short> rf =
                    o.replicationFactor < 0 ? Optional.empty() : Optional.of(o.replicationFactor);
            boolean created = false;
            try {
                admin.createTopics(
                                List.of(
                                        new NewTopic(o.topic(), Optional.of(o.partitions), rf)
                                                .configs(TOPIC_CONFIGS)))
                        .all()
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
                created = true;
                LOG.info("Created topic {} with {} partitions", o.topic(), o.partitions);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new RelayStartupException(
                            "cannot create topic "
                                    + o.topic()
                                    + " ("
                                    + e.getCause()
                                    + "). Fix: create it yourself or grant the relay CREATE on it.",
                            e);
                }
            }
            TopicDescription d = describeCreatedTopic(admin, o.topic(), timeoutMs);
            int n = d.partitions().size();
            if (n != o.partitions) {
                LOG.warn(
                        "Topic {} exists with {} partitions (asked for {}); using it as it is",
                        o.topic(),
                        n,
                        o.partitions);
            }
            checkTopicConfigs(admin, o, d, created, timeoutMs);
            return IntStream.range(0, n).boxed().toList();
        } catch (ExecutionException | TimeoutException e) {
            throw unreachable(o, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RelayStartupException("interrupted while preparing Kafka", e);
        }
    }

    /**
     * Describes a topic that was just created. A broker may learn of a new topic a moment after the
     * controller confirmed it (KRaft metadata propagation), so "unknown topic" is retried until the
     * timeout.
     */
    private static TopicDescription describeCreatedTopic(Admin admin, String topic, int timeoutMs)
            throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            try {
                return admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(timeoutMs, TimeUnit.MILLISECONDS)
                        .get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
                        || System.nanoTime() > deadline) {
                    throw e;
                }
                LOG.debug("Topic {} not yet known to the broker; asking again", topic);
                Thread.sleep(100); // polling the broker's metadata, not synchronisation
            }
        }
    }

    private static RelayStartupException unreachable(RelayOptions o, Exception e) {
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        return new RelayStartupException(
                "Kafka at "
                        + o.kafkaBootstrap
                        + " did not answer within "
                        + o.kafkaTimeout.toMillis()
                        + " ms ("
                        + cause
                        + "). Fix: check that the brokers run and --kafka-bootstrap is right"
                        + " (and any security settings given with --kafka-property).",
                e);
    }
}
