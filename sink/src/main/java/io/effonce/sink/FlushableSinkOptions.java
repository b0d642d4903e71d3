package io.effonce.sink;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Options of the flushable sink, readable from Flink configuration or the command line. */
@PublicEvolving
public final class FlushableSinkOptions {

    private FlushableSinkOptions() {}

    public static final ConfigOption<Integer> BATCH_SIZE =
            ConfigOptions.key("sink.batch-size")
                    .intType()
                    .defaultValue(1000)
                    .withDescription(
                            "Distinct keys buffered before a batch is written in one transaction."
                                    + " Upserts of one key coalesce, so a hot key costs one row per"
                                    + " batch.");

    public static final ConfigOption<Duration> FLUSH_INTERVAL =
            ConfigOptions.key("sink.flush-interval")
                    .durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .withDescription(
                            "Longest time an upsert waits in the buffer before it is written."
                                    + " The buffer is also written before every checkpoint barrier.");

    public static final ConfigOption<Boolean> RESET_ON_FRESH_START =
            ConfigOptions.key("sink.reset-on-fresh-start")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "On a start without restored state, delete the rows the table already"
                                    + " holds in this job's key groups. Off by default: such a start"
                                    + " is refused, because those rows cannot be reconciled without"
                                    + " the state that wrote them.");

    public static final ConfigOption<Duration> OWNER_LEASE =
            ConfigOptions.key("sink.owner-lease")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(10))
                    .withDescription(
                            "How long a running deployment holds its key groups against a start"
                                    + " without state (a second deployment by mistake) after it"
                                    + " took them or passed a checkpoint barrier; a clean stop or"
                                    + " cancel releases them at once. Keep it well above the"
                                    + " checkpoint interval.");

    public static final ConfigOption<Boolean> REQUIRE_DEPLOYMENT_NUMBER =
            ConfigOptions.key("sink.require-deployment-number")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether building the job's graph fails when the sink's database cannot"
                                    + " number the deployment (the sequence sink_deployment, where"
                                    + " the graph is built). The number orders deployments: an"
                                    + " attempt of an earlier one that wakes up late is refused."
                                    + " false: a warning, and the deployment runs unordered (for a"
                                    + " client that builds the graph where the sink's database"
                                    + " cannot be reached).");

    public static final ConfigOption<RestoreFlushPolicy> RESTORE_FLUSH =
            ConfigOptions.key("sink.restore-flush")
                    .enumType(RestoreFlushPolicy.class)
                    .defaultValue(RestoreFlushPolicy.AUTO)
                    .withDescription(
                            "AUTO: after a restore, set again only the rows written since the"
                                    + " restored checkpoint when the table is known to hold every"
                                    + " write before it and no row was deleted after it, else"
                                    + " every key of restored state. FULL:"
                                    + " always every key (the full flush; as exact, slower"
                                    + " in proportion to the state).");

    public static final ConfigOption<Duration> RETIRED_RETENTION =
            ConfigOptions.key("sink.retired-retention")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription(
                            "How long a retired key's final value, and a deleted key's"
                                    + " tombstone, stay in state after its live state went. A"
                                    + " database that goes back in time (an asynchronous standby"
                                    + " promoted, a backup restored) can lose the final row written"
                                    + " shortly before, or bring back a row deleted shortly before;"
                                    + " the repair after the restore writes the one again and"
                                    + " deletes the other from here. Rows retired longer ago are"
                                    + " rebuilt only by a recount. 0 keeps none.");

    public static final ConfigOption<Boolean> LOST_WRITE_CHECK =
            ConfigOptions.key("sink.lost-write-check")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether every write transaction also checks that the database still"
                                    + " holds each write transaction of this writer it acknowledged"
                                    + " (one more row updated per transaction), so that a database"
                                    + " that went back in time is noticed and repaired. Turn it off"
                                    + " only where the sink's database can never go back (a"
                                    + " synchronous standby, no restores of backups): otherwise"
                                    + " lost writes stay wrong until a recount.");

    public static final ConfigOption<Integer> MAX_RETRIES =
            ConfigOptions.key("sink.max-retries")
                    .intType()
                    .defaultValue(5)
                    .withDescription(
                            "Retries of a transaction that failed on a lost connection, each after"
                                    + " reconnecting. After the last one the task fails and Flink"
                                    + " restores it.");

    public static final ConfigOption<Duration> RETRY_BACKOFF =
            ConfigOptions.key("sink.retry-backoff")
                    .durationType()
                    .defaultValue(Duration.ofMillis(200))
                    .withDescription("First wait before a retry; it doubles up to 5 s.");

    public static final ConfigOption<Duration> IDLE_IN_TRANSACTION_TIMEOUT =
            ConfigOptions.key("sink.idle-in-transaction-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(20))
                    .withDescription(
                            "How long PostgreSQL keeps a transaction of the sink open while its"
                                    + " task is silent (paused, or cut from the network) before it"
                                    + " ends it and frees its locks: the longest a restored"
                                    + " attempt's takeover waits behind such a writer. At least"
                                    + " 1 s; an ended transaction of a live task is retried.");
}
