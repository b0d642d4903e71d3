package io.effonce.job.migrate;

import io.effonce.dedup.DedupOptions;
import io.effonce.dedup.Lateness;
import io.effonce.dedup.RecordedSetting;
import io.effonce.job.CommandLine;
import io.effonce.job.DailyTotal;
import io.effonce.job.DayFinality;
import io.effonce.job.JobOptions;
import io.effonce.job.LedgerPipeline;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.SavepointCheck;
import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.SinkStateLayout;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one-time migration of a savepoint taken before 0.3.0 to the state 0.3.0 restores, with
 * Flink's State Processor API, as a batch job. Such a savepoint names the job's key and value by
 * their old class names ({@code io.effonce.sink.store}), and a savepoint of 0.1.0 (or of 0.2.x run
 * with {@code pipeline.layout=TWO_STAGE}) keeps the two-stage layout besides:
 *
 * <ul>
 *   <li>the merchant stage's state (uid {@code merchant-totals}) is built from the two-stage
 *       layout's stages ({@link TwoStageState}, which looks each remembered id's merchant up in the
 *       ledger), or read back from the merchant stage of the old savepoint ({@link
 *       MerchantLayoutState}), and written by {@link MerchantStateBootstrap} under the job's own
 *       classes: totals and ids per day, one timer per merchant-day, the watermark floor, the
 *       recorded horizon and zone;
 *   <li>the sink's state (its keyed values and its lineage) is read under the old names ({@link
 *       SinkStateReader}) and written under the new ones ({@link SinkStateBootstrap});
 *   <li>the source's and the side tables' state are copied unchanged.
 * </ul>
 *
 * Settings recorded in the old savepoint are checked against the configured ones first, as a
 * restore would. It needs the old classes, which the job's jar leaves out: run it on the cluster
 * with the migration jar ({@code flink run -c ... effonce-job-<version>-migrate.jar}, job/README).
 */
public final class MigrateSavepoint {

    private static final Logger LOG = LoggerFactory.getLogger(MigrateSavepoint.class);

    /** The options it reads: its own, and the job's that the new state is built for. */
    static final List<Class<?>> OPTION_CLASSES =
            List.of(
                    MigrationOptions.class,
                    JobOptions.class,
                    DedupOptions.class,
                    FlushableSinkOptions.class);

    private static final String OLD_KEY_CLASS = "io.effonce.sink.store.MerchantDayKey";

    private MigrateSavepoint() {}

    public static void main(String[] args) throws Exception {
        if (CommandLine.wantsHelp(args)) {
            System.out.println(
                    CommandLine.help(
                            "flink run -c "
                                    + MigrateSavepoint.class.getName()
                                    + " effonce-job-<version>-migrate.jar --migrate.from SAVEPOINT"
                                    + " --migrate.to DIR [--ledger.url URL]",
                            OPTION_CLASSES));
            return;
        }
        requireTheOldClasses();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration config = Configuration.fromMap(env.getConfiguration().toMap());
        config.addAll(CommandLine.parse(args, OPTION_CLASSES));
        MigrationReport report = run(env, config);
        if (report != null) {
            System.out.println("Migrated: " + report);
        }
    }

    /** Runs the migration that {@code config} describes in {@code env}; returns what it moved. */
    public static MigrationReport run(StreamExecutionEnvironment env, ReadableConfig config)
            throws Exception {
        String from = require(config, MigrationOptions.FROM);
        String to = require(config, MigrationOptions.TO);
        Lateness lateness = Lateness.from(config);
        DayFinality finality =
                new DayFinality(ZoneId.of(config.get(JobOptions.ZONE)), lateness.horizon());
        Duration retention = config.get(FlushableSinkOptions.RETIRED_RETENTION);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        Configuration migration = new Configuration();
        // What fails a migration (a payment the ledger lacks, a changed setting) fails it again:
        // stop at once with the reason instead of restarting as the cluster's strategy would.
        migration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // The State Processor API ships its own records (OperatorState) as generic types, which
        // the job's cluster configuration switches off for the job (deploy/flink-conf); this
        // one-time batch job keeps nothing in state that a later release must read.
        migration.set(PipelineOptions.GENERIC_TYPES, true);
        env.configure(migration);

        requireAnOldSavepoint(from, env);
        CheckpointMetadata savepoint = SavepointLoader.loadSavepointMetadata(from);
        SavepointReader old = SavepointReader.read(env, from, new HashMapStateBackend());
        Duration ttl = lateness.stateTtl();
        RecordedSetting horizon = lateness.recordedHorizon();
        RecordedSetting zone = finality.recordedZone();
        boolean twoStage = TwoStageState.isLayoutOf(savepoint);
        DataStream<MigratedEntry> merchantEntries =
                twoStage
                        ? TwoStageState.entries(old, ledger(config), ttl, horizon, zone)
                        : MerchantLayoutState.entries(env, savepoint, old, ttl, horizon, zone);
        StateBootstrapTransformation<MigratedEntry> merchantState =
                OperatorTransformation.bootstrapWith(merchantEntries)
                        .keyBy(e -> e.merchant, Types.STRING)
                        .transform(
                                (timestamp, path) ->
                                        SimpleOperatorFactory.of(
                                                new MerchantStateBootstrap(
                                                        0L, timestamp, path, finality, ttl)));
        StateBootstrapTransformation<SinkStateEntry> sinkState = sinkState(old, retention);
        SavepointWriter writer =
                SavepointWriter.fromExistingSavepoint(env, from, new HashMapStateBackend());
        if (twoStage) {
            writer.removeOperator(OperatorIdentifier.forUid(TwoStageLayout.DEDUP_UID))
                    .removeOperator(OperatorIdentifier.forUid(TwoStageLayout.TOTALS_UID));
        } else {
            writer.removeOperator(OperatorIdentifier.forUid(LedgerPipeline.MERCHANT_TOTALS_UID));
        }
        writer.removeOperator(OperatorIdentifier.forUid(LedgerPipeline.SINK_UID))
                .withOperator(
                        OperatorIdentifier.forUid(LedgerPipeline.MERCHANT_TOTALS_UID),
                        merchantState)
                .withOperator(OperatorIdentifier.forUid(LedgerPipeline.SINK_UID), sinkState)
                .write(to);
        // One job, so that it also runs where a jar may start only one (the REST API's jar run).
        JobExecutionResult result = env.execute("effonce: migrate a savepoint to release 0.3.0");
        if (!result.isJobExecutionResult()) {
            LOG.info(
                    "Submitted the migration of {} to {} detached: the savepoint is complete when"
                            + " the job has FINISHED; its TaskManagers log what it moved",
                    from,
                    to);
            return null;
        }
        MigrationReport report = MigrationReport.of(result);
        LOG.info("Migrated {} to {}: {}", from, to, report);
        return report;
    }

    /**
     * The sink's keyed state and lineage, read under the old class names and written under the
     * job's own; its lineage entries travel under one empty key.
     */
    static StateBootstrapTransformation<SinkStateEntry> sinkState(
            SavepointReader old, Duration retention) throws Exception {
        OperatorIdentifier sink = OperatorIdentifier.forUid(LedgerPipeline.SINK_UID);
        TypeInformation<SinkStateEntry> entries = TypeInformation.of(SinkStateEntry.class);
        DataStream<SinkStateEntry> keys =
                old.readKeyedState(
                        sink,
                        new SinkStateReader(retention),
                        TypeInformation.of(io.effonce.sink.store.MerchantDayKey.class),
                        entries);
        DataStream<SinkStateEntry> lineage =
                old.readUnionState(sink, SinkStateLayout.LINEAGE_STATE, Types.STRING)
                        .map(SinkStateEntry::lineage, entries)
                        .name("Sink lineage");
        return OperatorTransformation.bootstrapWith(keys.union(lineage))
                .keyBy(SinkStateEntry::key, TypeInformation.of(MerchantDayKey.class))
                .transform(
                        (timestamp, path) ->
                                SimpleOperatorFactory.of(
                                        new SinkStateBootstrap<>(
                                                0L,
                                                timestamp,
                                                path,
                                                retention,
                                                TypeInformation.of(DailyTotal.class),
                                                DailyTotal::new)));
    }

    /**
     * Refuses a savepoint that already names the job's own classes (one this migration wrote, or
     * taken by 0.3.0 or later): migrating it again would fail deep in Flink.
     */
    private static void requireAnOldSavepoint(String from, StreamExecutionEnvironment env) {
        Configuration restoring = new Configuration();
        restoring.set(StateRecoveryOptions.SAVEPOINT_PATH, from);
        if (SavepointCheck.run(restoring, env.getConfig().getSerializerConfig()).isEmpty()) {
            throw new IllegalArgumentException(
                    "The savepoint "
                            + from
                            + " already names the state classes of release 0.3.0 (or is not a"
                            + " canonical savepoint: flink stop --type canonical takes one):"
                            + " restore the job from it as it is.");
        }
    }

    /** The job's own jar leaves the old classes out; the migration jar carries them. */
    private static void requireTheOldClasses() {
        try {
            Class.forName(OLD_KEY_CLASS, false, MigrateSavepoint.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    "This jar lacks the classes a savepoint before 0.3.0 names ("
                            + OLD_KEY_CLASS
                            + "): run the migration with the migration jar,"
                            + " effonce-job-<version>-migrate.jar (job/README.md, \"Upgrades\").");
        }
    }

    private static PostgresStoreConfig ledger(ReadableConfig config) {
        String file = config.get(MigrationOptions.LEDGER_PASSWORD_FILE);
        String url = require(config, MigrationOptions.LEDGER_URL);
        String user = config.get(MigrationOptions.LEDGER_USER);
        return file != null
                ? PostgresStoreConfig.builder()
                        .url(url)
                        .username(user)
                        .passwordFile(file)
                        .table("payments")
                        .build()
                : PostgresStoreConfig.builder()
                        .url(url)
                        .username(user)
                        .passwordEnv(config.get(MigrationOptions.LEDGER_PASSWORD_ENV))
                        .table("payments")
                        .build();
    }

    private static String require(ReadableConfig config, ConfigOption<String> option) {
        String value = config.get(option);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    "--" + option.key() + " is required: " + option.description());
        }
        return value;
    }
}
