package io.effonce.cdc;

import io.debezium.connector.postgresql.PostgresConnectorConfig.LsnFlushMode;
import io.debezium.connector.postgresql.PostgresConnectorConfig.OffsetSlotMismatchStrategy;
import io.debezium.connector.postgresql.PostgresConnectorConfig.SnapshotMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Everything the relay can be told, as picocli options. Each option can also come from the
 * environment variable named in its description (see {@link EnvDefaults}); the command line wins.
 * The password is never part of an option value on the command line, and never printed: it comes
 * from {@code EFFONCE_PG_PASSWORD} or from a file.
 */
@Command(
        name = "ledger-relay",
        version = "effonce ledger relay",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Streams every committed change of the ledger's public.payments table (PostgreSQL,"
                    + " logical decoding with pgoutput, through Debezium's embedded engine) to the"
                    + " Kafka topic <prefix>.public.payments, key = payment_id, value = Debezium's"
                    + " JSON envelope. At-least-once: a change's position is committed only after"
                    + " Kafka acknowledged it.",
            "Every option can also be set from the environment variable shown in brackets."
        })
public final class RelayOptions {

    private static final Pattern NAME = Pattern.compile("[a-z0-9_]{1,63}");
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]{1,200}");

    @Option(
            names = "--db-url",
            paramLabel = "JDBC_URL",
            description =
                    "Ledger database, jdbc:postgresql://HOST:PORT/DB. Several hosts"
                            + " (HOST:PORT,HOST:PORT): the relay streams from the one that is the"
                            + " primary when it starts, so a restart after a failover finds the"
                            + " promoted standby. [EFFONCE_PG_URL] Default: ${DEFAULT-VALUE}",
            defaultValue = "jdbc:postgresql://127.0.0.1:5432/effonce")
    String dbUrl;

    @Option(
            names = "--db-user",
            paramLabel = "ROLE",
            description =
                    "Role to log in as; needs LOGIN, REPLICATION and SELECT on payments."
                            + " [EFFONCE_PG_USER] Default: ${DEFAULT-VALUE}",
            defaultValue = "effonce_relay")
    String dbUser;

    @Option(
            names = "--db-password-file",
            paramLabel = "FILE",
            description =
                    "File whose first line is the password. Without it the password comes from"
                            + " the environment. [EFFONCE_PG_PASSWORD, or EFFONCE_PG_PASSWORD_FILE]")
    Path dbPasswordFile;

    @Option(
            names = "--slot",
            paramLabel = "NAME",
            description =
                    "Logical replication slot, created if missing (lower case, digits, _)."
                            + " [EFFONCE_RELAY_SLOT] Default: ${DEFAULT-VALUE}",
            defaultValue = "effonce_relay")
    String slot;

    @Option(
            names = "--slot-failover",
            paramLabel = "auto|on|off",
            description =
                    "Create the slot with failover = true, so that a standby with"
                            + " sync_replication_slots = on keeps it and a promotion loses no"
                            + " change (PostgreSQL 17+; an existing slot keeps its setting)."
                            + " auto: on where the server is 17 or later."
                            + " [EFFONCE_RELAY_SLOT_FAILOVER] Default: ${DEFAULT-VALUE}",
            defaultValue = "auto",
            converter = SlotFailoverConverter.class)
    SlotFailover slotFailover;

    /** {@code --slot-failover}, by name in any case. */
    static final class SlotFailoverConverter
            implements picocli.CommandLine.ITypeConverter<SlotFailover> {
        @Override
        public SlotFailover convert(String text) {
            try {
                return SlotFailover.valueOf(text.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "--slot-failover must be auto, on or off, was '" + text + "'");
            }
        }
    }

    /** The host of {@code --db-url} the relay streams from, once it chose one at start. */
    private String primaryUrl;

    /** The URL of the host the relay streams from: the primary it found, or {@code --db-url}. */
    String connectUrl() {
        return primaryUrl != null ? primaryUrl : dbUrl;
    }

    void streamFrom(String url) {
        this.primaryUrl = url;
    }

    @Option(
            names = "--publication",
            paramLabel = "NAME",
            description =
                    "Publication to stream; used as it is if it exists, else created FOR TABLE"
                            + " public.payments (needs ownership of the table)."
                            + " [EFFONCE_RELAY_PUBLICATION] Default: ${DEFAULT-VALUE}",
            defaultValue = "effonce_payments")
    String publication;

    @Option(
            names = "--topic-prefix",
            paramLabel = "PREFIX",
            description =
                    "Topic prefix: changes go to <prefix>.public.payments; also Debezium's"
                            + " logical server name. [EFFONCE_TOPIC_PREFIX] Default: ${DEFAULT-VALUE}",
            defaultValue = "effonce")
    String topicPrefix;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            description =
                    "Partitions of the topic when the relay creates it (an existing topic is used"
                            + " as it is). [EFFONCE_RELAY_PARTITIONS] Default: ${DEFAULT-VALUE}",
            defaultValue = "4")
    int partitions;

    @Option(
            names = "--replication-factor",
            paramLabel = "N",
            description =
                    "Replication factor of a topic the relay creates; -1 for the broker's default."
                            + " [EFFONCE_RELAY_REPLICATION_FACTOR] Default: ${DEFAULT-VALUE}",
            defaultValue = "-1")
    short replicationFactor;

    @Option(
            names = "--kafka-bootstrap",
            paramLabel = "HOST:PORT[,...]",
            description =
                    "Kafka bootstrap servers. [EFFONCE_KAFKA_BOOTSTRAP] Default: ${DEFAULT-VALUE}",
            defaultValue = "127.0.0.1:9092")
    String kafkaBootstrap;

    @Option(
            names = "--kafka-property",
            paramLabel = "KEY=VALUE",
            description =
                    "Extra Kafka client property for the producer, the admin client and a Kafka"
                            + " offset store (security, compression, ...); repeatable. A weaker acks"
                            + " or idempotence is refused.")
    Map<String, String> kafkaProperties = new LinkedHashMap<>();

    @Option(
            names = "--kafka-timeout",
            paramLabel = "DURATION",
            description =
                    "How long start-up waits for Kafka (ISO-8601 like PT30S, or 30s, 500ms)."
                            + " [EFFONCE_RELAY_KAFKA_TIMEOUT] Default: ${DEFAULT-VALUE}",
            defaultValue = "30s",
            converter = Durations.class)
    Duration kafkaTimeout;

    @Option(
            names = "--offsets-file",
            paramLabel = "FILE",
            description =
                    "Durable offset store: a file (Kafka Connect's FileOffsetBackingStore)."
                            + " [EFFONCE_RELAY_OFFSETS_FILE] Default: ${DEFAULT-VALUE}",
            defaultValue = "effonce-relay.offsets")
    Path offsetsFile;

    @Option(
            names = "--offsets-topic",
            paramLabel = "TOPIC",
            description =
                    "Store offsets in this compacted Kafka topic instead of a file"
                            + " (KafkaOffsetBackingStore). [EFFONCE_RELAY_OFFSETS_TOPIC]")
    String offsetsTopic;

    @Option(
            names = "--offset-flush-interval",
            paramLabel = "DURATION",
            description =
                    "How often acknowledged positions are committed to the offset store and"
                            + " confirmed to the slot; a crash re-sends at most this much."
                            + " [EFFONCE_RELAY_OFFSET_FLUSH_INTERVAL] Default: ${DEFAULT-VALUE}",
            defaultValue = "1s",
            converter = Durations.class)
    Duration offsetFlushInterval;

    @Option(
            names = "--heartbeat-interval",
            paramLabel = "DURATION",
            description =
                    "Heartbeat records on every partition while the ledger is quiet; 0 switches"
                            + " them off. [EFFONCE_RELAY_HEARTBEAT_INTERVAL] Default: ${DEFAULT-VALUE}",
            defaultValue = "1s",
            converter = Durations.class)
    Duration heartbeatInterval;

    @Option(
            names = "--snapshot-mode",
            paramLabel = "MODE",
            description =
                    "Debezium snapshot.mode: no_data streams only changes after the slot exists;"
                            + " initial first sends every existing row (op r), once; also"
                            + " when_needed, always, initial_only."
                            + " [EFFONCE_RELAY_SNAPSHOT_MODE] Default: ${DEFAULT-VALUE}",
            defaultValue = "no_data",
            converter = DebeziumModes.Snapshot.class)
    SnapshotMode snapshotMode;

    @Option(
            names = "--lsn-flush-mode",
            paramLabel = "MODE",
            description =
                    "Debezium lsn.flush.mode: connector confirms committed positions to the slot so"
                            + " PostgreSQL can recycle WAL; manual never does (an operator moves the"
                            + " slot), which lets a restored older offset file replay."
                            + " [EFFONCE_RELAY_LSN_FLUSH_MODE] Default: ${DEFAULT-VALUE}",
            defaultValue = "connector",
            converter = DebeziumModes.LsnFlush.class)
    LsnFlushMode lsnFlushMode;

    @Option(
            names = "--offset-mismatch-strategy",
            paramLabel = "STRATEGY",
            description =
                    "Debezium offset.mismatch.strategy, when the stored offset and the slot's"
                            + " confirmed position differ: trust_offset moves the slot to the offset"
                            + " and fails if the slot is ahead (a recreated slot or an offset store"
                            + " older than the slot would otherwise skip changes silently);"
                            + " also no_validation, trust_slot, trust_greater_lsn."
                            + " [EFFONCE_RELAY_OFFSET_MISMATCH_STRATEGY] Default: ${DEFAULT-VALUE}",
            defaultValue = "trust_offset",
            converter = DebeziumModes.OffsetMismatch.class)
    OffsetSlotMismatchStrategy offsetMismatchStrategy;

    @Option(
            names = "--health-interval",
            paramLabel = "DURATION",
            description =
                    "How often the relay logs its position, changes/s and the delay from commit to Kafka ack."
                            + " [EFFONCE_RELAY_HEALTH_INTERVAL] Default: ${DEFAULT-VALUE}",
            defaultValue = "30s",
            converter = Durations.class)
    Duration healthInterval;

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            description =
                    "Serve the relay's metrics for Prometheus at http://ADDRESS:PORT/metrics"
                            + " (0: a free port, logged). Without it, no endpoint."
                            + " [EFFONCE_RELAY_METRICS_PORT]")
    Integer metricsPort;

    @Option(
            names = "--metrics-address",
            paramLabel = "ADDRESS",
            description =
                    "Address the metrics endpoint listens on; 0.0.0.0 in a container."
                            + " [EFFONCE_RELAY_METRICS_ADDRESS] Default: ${DEFAULT-VALUE}",
            defaultValue = "127.0.0.1")
    String metricsAddress;

    @Option(
            names = "--max-batch-size",
            paramLabel = "N",
            description =
                    "Largest batch the engine hands over; each batch is acknowledged by Kafka"
                            + " before its positions are marked."
                            + " [EFFONCE_RELAY_MAX_BATCH_SIZE] Default: ${DEFAULT-VALUE}",
            defaultValue = "2048")
    int maxBatchSize;

    @Option(
            names = "--poll-interval",
            paramLabel = "DURATION",
            description =
                    "Longest wait for more changes before a batch is handed over, and the pause"
                            + " between reads of an idle replication stream: the relay's share of"
                            + " freshness. Under load, batches fill up before it elapses."
                            + " [EFFONCE_RELAY_POLL_INTERVAL] Default: ${DEFAULT-VALUE}",
            defaultValue = "10ms",
            converter = Durations.class)
    Duration pollInterval;

    /** Test only: halt the JVM after Kafka acknowledged this many changes, before marking them. */
    @Option(names = "--test-halt-after-changes", hidden = true, defaultValue = "0")
    long haltAfterChanges;

    /** Set from the password file or the environment; never printed. */
    String dbPassword = "";

    /** The topic the changes go to. */
    public String topic() {
        return topicPrefix + ".public.payments";
    }

    /** The destination Debezium gives its heartbeat records. */
    String heartbeatDestination() {
        return "__debezium-heartbeat." + topicPrefix;
    }

    /** Checks every value; the message says how to fix the first wrong one. */
    void validate() {
        check(
                dbUrl.startsWith("jdbc:postgresql://"),
                "--db-url must look like jdbc:postgresql://HOST:PORT/DB, was " + dbUrl);
        LedgerHosts.each(dbUrl).forEach(JdbcUrl::parse);
        check(!dbUser.isBlank(), "--db-user must not be empty");
        check(
                NAME.matcher(slot).matches(),
                "--slot must be 1-63 lower-case letters, digits or _, was '" + slot + "'");
        check(
                NAME.matcher(publication).matches(),
                "--publication must be 1-63 lower-case letters, digits or _, was '"
                        + publication
                        + "'");
        check(
                PREFIX.matcher(topicPrefix).matches(),
                "--topic-prefix may hold letters, digits, '.', '_' and '-', was '"
                        + topicPrefix
                        + "'");
        check(partitions >= 1, "--partitions must be >= 1, was " + partitions);
        check(
                replicationFactor == -1 || replicationFactor >= 1,
                "--replication-factor must be -1 or >= 1");
        check(!kafkaBootstrap.isBlank(), "--kafka-bootstrap must name at least one HOST:PORT");
        TopicDurability.weakProducerProperty(kafkaProperties)
                .ifPresent(
                        weak -> {
                            throw new IllegalArgumentException(weak);
                        });
        check(!offsetFlushInterval.isNegative(), "--offset-flush-interval must be >= 0");
        check(!heartbeatInterval.isNegative(), "--heartbeat-interval must be >= 0 (0 = off)");
        check(
                healthInterval.toMillis() > 0,
                "--health-interval must be > 0, e.g. 30s; it only sets how often health is logged");
        check(maxBatchSize >= 1, "--max-batch-size must be >= 1");
        check(
                pollInterval.toMillis() >= 1 && pollInterval.toMillis() <= 5_000,
                "--poll-interval must be between 1ms and 5s, e.g. 10ms; it bounds how long a"
                        + " change waits for its batch");
        check(offsetsTopic == null || !offsetsTopic.isBlank(), "--offsets-topic must not be empty");
        check(
                metricsPort == null || (metricsPort >= 0 && metricsPort <= 65_535),
                "--metrics-port must be between 0 (a free port) and 65535, was " + metricsPort);
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    @Override
    public String toString() {
        return "RelayOptions[db="
                + dbUrl
                + ", user="
                + dbUser
                + ", slot="
                + slot
                + ", publication="
                + publication
                + ", topic="
                + topic()
                + ", partitions="
                + partitions
                + ", kafka="
                + kafkaBootstrap
                + ", offsets="
                + (offsetsTopic != null ? "topic " + offsetsTopic : offsetsFile)
                + ", flush="
                + offsetFlushInterval
                + ", heartbeat="
                + heartbeatInterval
                + ", snapshot="
                + snapshotMode.getValue()
                + ", lsnFlush="
                + lsnFlushMode.getValue()
                + "]";
    }
}
