package io.effonce.job;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The job's options, from the cluster's configuration ({@code config.yaml}) with the command line
 * ({@code --key value}) on top, see {@link JobConfiguration}. The sink's ({@code sink.*}) and
 * deduplication's ({@code dedup.*}) options are read as well.
 */
public final class JobOptions {

    private JobOptions() {}

    public static final ConfigOption<String> KAFKA_BOOTSTRAP =
            ConfigOptions.key("kafka.bootstrap-servers")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Kafka bootstrap servers of the relay's topic. Required.");

    public static final ConfigOption<List<String>> TOPIC =
            ConfigOptions.key("kafka.topic")
                    .stringType()
                    .asList()
                    .defaultValues("effonce.public.payments")
                    .withDescription(
                            "The relay's change topic, <prefix>.public.payments; for a sharded"
                                    + " ledger every shard's relay's topic, separated by ';', read"
                                    + " as one stream.");

    public static final ConfigOption<String> GROUP_ID =
            ConfigOptions.key("kafka.group-id")
                    .stringType()
                    .defaultValue("effonce-ledger-totals")
                    .withDescription(
                            "Consumer group; offsets live in checkpoints, the group only shows lag.");

    public static final ConfigOption<Duration> KAFKA_API_TIMEOUT =
            ConfigOptions.key("kafka.api-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withDescription(
                            "How long the source's Kafka clients wait for the brokers before an"
                                    + " operation fails (Kafka's default.api.timeout.ms): the"
                                    + " partition discovery in the JobManager and the readers'"
                                    + " offset lookups. A failure restarts the job; 60 s is Kafka's"
                                    + " own default.");

    /** Where a job without restored state starts reading. */
    public enum StartingOffsets {
        EARLIEST,
        LATEST,
        /** The consumer group's committed offsets, else the earliest. */
        COMMITTED
    }

    public static final ConfigOption<StartingOffsets> STARTING_OFFSETS =
            ConfigOptions.key("kafka.starting-offsets")
                    .enumType(StartingOffsets.class)
                    .defaultValue(StartingOffsets.EARLIEST)
                    .withDescription(
                            "Where a job without restored state starts: earliest, latest or"
                                    + " committed (the group's offsets, else earliest).");

    public static final ConfigOption<String> SINK_TABLE =
            ConfigOptions.key("sink.table")
                    .stringType()
                    .defaultValue("merchant_daily_totals")
                    .withDescription(
                            "The merchant daily totals table, optionally schema-qualified; letters, digits and"
                                    + " underscores only.");

    public static final ConfigOption<String> PG_URL =
            ConfigOptions.key("postgres.url")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("JDBC URL of the database with the sink tables. Required.");

    public static final ConfigOption<String> PG_USER =
            ConfigOptions.key("postgres.user")
                    .stringType()
                    .defaultValue("effonce_sink")
                    .withDescription("Database role of the sink (see deploy/sql/roles.sql).");

    public static final ConfigOption<String> PG_PASSWORD_FILE =
            ConfigOptions.key("postgres.password-file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "File holding the role's password, read on each task manager.");

    public static final ConfigOption<String> PG_PASSWORD_ENV =
            ConfigOptions.key("postgres.password-env")
                    .stringType()
                    .defaultValue("EFFONCE_SINK_PASSWORD")
                    .withDescription(
                            "Environment variable of the task managers holding the password,"
                                    + " used when no password file is given.");

    public static final ConfigOption<String> ZONE =
            ConfigOptions.key("totals.zone")
                    .stringType()
                    .defaultValue("UTC")
                    .withDescription("Time zone whose calendar days the totals are for.");

    public static final ConfigOption<List<String>> COUNTED_STATES =
            ConfigOptions.key("totals.counted-states")
                    .stringType()
                    .asList()
                    .defaultValues("SUCCEEDED")
                    .withDescription(
                            "Payment states whose changes count toward a total; only these are"
                                    + " keyed, deduplicated and remembered.");

    public static final ConfigOption<Duration> BUFFER_TIMEOUT =
            ConfigOptions.key("network.buffer-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMillis(10))
                    .withDescription(
                            "Longest time a record waits in a network buffer before it goes to the"
                                    + " next operator (Flink's buffer timeout, for this job). The job"
                                    + " has two shuffles, so this bounds their part of freshness;"
                                    + " under load, buffers fill and leave sooner.");

    public static final ConfigOption<Duration> OUT_OF_ORDERNESS =
            ConfigOptions.key("watermark.out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription("How far behind the newest event time a change may arrive.");

    public static final ConfigOption<Duration> BACKLOG_THRESHOLD =
            ConfigOptions.key("source.backlog-threshold")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "A source subtask emitting records older than this (the broker's"
                                    + " append time) reports a backlog until its records are"
                                    + " younger than half of it or it has emitted nothing for"
                                    + " 30 s; meanwhile Flink checkpoints on"
                                    + " execution.checkpointing.interval-during-backlog (unset:"
                                    + " on the usual interval). A start presumes a backlog until"
                                    + " every subtask has emitted a record (at most 30 s). 0 s:"
                                    + " the source never reports a backlog.");

    public static final ConfigOption<Duration> IDLENESS =
            ConfigOptions.key("watermark.idleness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "A partition silent this long stops holding back the watermark. The"
                                    + " relay's heartbeats normally keep every partition alive.");

    public static final ConfigOption<Duration> START_HOLD =
            ConfigOptions.key("watermark.start-hold")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "A source subtask that has read nothing yet does not go idle for this"
                                    + " long after it starts: its partitions' first fetch may come"
                                    + " later than watermark.idleness, and their history must not"
                                    + " be judged against the other partitions' present. A subtask"
                                    + " that owns no partition holds the watermark this long.");

    public static final ConfigOption<Duration> EVENT_TIME_TOLERANCE =
            ConfigOptions.key("event-time.tolerance")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(5))
                    .withDescription(
                            "How far a change's updated_at, or a heartbeat's ts_ms, may lie ahead of"
                                    + " its Kafka record's timestamp (the broker's clock: the relay"
                                    + " creates its topic with LogAppendTime). Anything further"
                                    + " ahead came from a wrong clock: it is a dead letter"
                                    + " (event-time-ahead) and moves no watermark. Raise it only"
                                    + " for a workload whose event time runs ahead of real time,"
                                    + " as the demo's does.");

    public static final ConfigOption<Boolean> STARTUP_CHECK =
            ConfigOptions.key("startup-check")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Check in main, before the job is submitted, that the sink's login"
                                    + " works, its tables exist and may be written, and the change"
                                    + " topics exist; a mistake fails the submission with one"
                                    + " sentence that names the fix. Kafka that does not answer"
                                    + " within 15 s fails it too. false skips the checks (main on a"
                                    + " client outside the cluster; where the sink's database cannot"
                                    + " be reached from there, sink.require-deployment-number false"
                                    + " too).");

    public static final ConfigOption<Boolean> HOLD_DURING_SNAPSHOT =
            ConfigOptions.key("watermark.hold-during-snapshot")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Rows of the relay's initial snapshot (op r: the ledger's history, in"
                                    + " primary-key order) do not move event time, so no history"
                                    + " is judged late and no day closes before the snapshot is"
                                    + " read. false only reproduces the flaw it fixes.");

    /**
     * Flink's own {@code pipeline.max-parallelism}, with the job's default (Flink's would derive it
     * from the parallelism, and it must never change); {@code job.max-parallelism} is its old name.
     */
    public static final ConfigOption<Integer> MAX_PARALLELISM =
            ConfigOptions.key("pipeline.max-parallelism")
                    .intType()
                    .defaultValue(128)
                    .withDeprecatedKeys("job.max-parallelism")
                    .withDescription(
                            "Key groups of the job. Fixed for the job's life: the sink's key_group"
                                    + " column and every savepoint depend on it.");

    public static final ConfigOption<Integer> DEAD_LETTER_MAX_CHARS =
            ConfigOptions.key("dead-letters.max-chars")
                    .intType()
                    .defaultValue(4096)
                    .withDescription(
                            "Characters of a rejected record's value kept in dead_letters.");

    /**
     * Options of earlier releases that the job refuses, each with what to do instead: a removed
     * option silently ignored could run the job in a way its user did not choose.
     */
    static final Map<String, String> REMOVED =
            Map.of(
                    "pipeline.layout",
                    "was removed in 0.3.0: the job has one layout, one stage keyed by merchant"
                            + " (MERCHANT, the default since 0.2.0; drop the option). A savepoint"
                            + " of the two-stage layout (0.1.0, or 0.2.x run with that layout) is"
                            + " migrated once with MigrateSavepoint (job/README.md,"
                            + " \"Upgrades\") and the migrated savepoint restored.");

    public static final ConfigOption<Boolean> ALLOW_EMPTY_MERCHANT_STAGE =
            ConfigOptions.key("pipeline.allow-empty-merchant-stage")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Let the merchant stage start without state when the"
                                    + " checkpoint or savepoint the job restores holds none for it"
                                    + " (a two-stage savepoint restored with"
                                    + " --allowNonRestoredState). Its totals then start from zero, and the sink"
                                    + " overwrites open days' totals with partial ones. Off: such a"
                                    + " restore is refused; migrate the savepoint instead"
                                    + " (MigrateSavepoint, job/README.md \"Upgrades\").");

    public static final ConfigOption<Integer> BUNDLE_SIZE =
            ConfigOptions.key("pipeline.bundle-size")
                    .intType()
                    .defaultValue(1000)
                    .withDescription(
                            "Records gathered before the merchant stage judges and"
                                    + " counts them together.");

    public static final ConfigOption<Duration> BUNDLE_DELAY =
            ConfigOptions.key("pipeline.bundle-delay")
                    .durationType()
                    .defaultValue(Duration.ofMillis(5))
                    .withDescription(
                            "Longest time a record waits in a bundle (its part of"
                                    + " freshness). Bundles are also finished before every"
                                    + " watermark and checkpoint barrier.");
}
