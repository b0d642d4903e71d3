package io.effonce.job.migrate;

import io.effonce.dedup.DedupOptions;
import io.effonce.dedup.Lateness;
import io.effonce.dedup.RecordedSetting;
import io.effonce.dedup.WatermarkFloor;
import io.effonce.job.CommandLine;
import io.effonce.job.DayFinality;
import io.effonce.job.JobOptions;
import io.effonce.job.LedgerPipeline;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.store.MerchantDayKey;
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
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one-time migration of a savepoint of the two-stage layout ({@code pipeline.layout=TWO_STAGE},
 * every 0.1.0 savepoint) to the merchant layout, with Flink's State Processor API, as a batch job:
 *
 * <ol>
 *   <li>the open merchant-days' totals are read from {@code daily-totals}, the remembered event ids
 *       from {@code dedup-by-event-id};
 *   <li>each id's merchant is looked up in the ledger (the old state keys ids by event id alone);
 *   <li>per merchant, each id is placed in every open day of its merchant ({@link IdsOfOpenDays}
 *       says why that finds every copy), and {@link MerchantStateBootstrap} writes the merchant
 *       stage's state under uid {@code merchant-totals}: totals and ids per day, one timer per
 *       merchant-day, the watermark floor, the recorded horizon and zone;
 *   <li>the two old stages are removed; the source's, the sink's and the side tables' state are
 *       copied unchanged (same uids; the sink is keyed by merchant-day in both layouts).
 * </ol>
 *
 * Settings recorded in the old savepoint are checked against the configured ones first, as a
 * restore would. Run it on the cluster with the job jar ({@code flink run -c ...}, job/README).
 */
public final class MigrateToMerchantLayout {

    private static final Logger LOG = LoggerFactory.getLogger(MigrateToMerchantLayout.class);

    /** The options it reads: its own, and the job's that the new state is built for. */
    static final List<Class<?>> OPTION_CLASSES =
            List.of(MigrationOptions.class, JobOptions.class, DedupOptions.class);

    private MigrateToMerchantLayout() {}

    public static void main(String[] args) throws Exception {
        if (CommandLine.wantsHelp(args)) {
            System.out.println(
                    CommandLine.help(
                            "flink run -c "
                                    + MigrateToMerchantLayout.class.getName()
                                    + " effonce-job.jar --migrate.from SAVEPOINT --migrate.to DIR"
                                    + " --ledger.url URL",
                            OPTION_CLASSES));
            return;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration config = Configuration.fromMap(env.getConfiguration().toMap());
        config.addAll(CommandLine.parse(args, OPTION_CLASSES));
        System.out.println("Migrated: " + run(env, config));
    }

    /** Runs the migration that {@code config} describes in {@code env}; returns what it moved. */
    public static MigrationReport run(StreamExecutionEnvironment env, ReadableConfig config)
            throws Exception {
        String from = require(config, MigrationOptions.FROM);
        String to = require(config, MigrationOptions.TO);
        Lateness lateness = Lateness.from(config);
        DayFinality finality =
                new DayFinality(ZoneId.of(config.get(JobOptions.ZONE)), lateness.horizon());
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

        SavepointReader old = SavepointReader.read(env, from, new HashMapStateBackend());
        Duration ttl = lateness.stateTtl();
        TypeInformation<MigratedEntry> entries = TypeInformation.of(MigratedEntry.class);
        DataStream<MigratedEntry> ids =
                old.readKeyedState(
                                OperatorIdentifier.forUid(TwoStageLayout.DEDUP_UID),
                                new SeenIdsReader(ttl),
                                Types.STRING,
                                Types.STRING)
                        .transform(
                                "Merchants of remembered ids",
                                entries,
                                new LedgerMerchants(ledger(config)))
                        // Its own task, behind a blocking exchange: a refusal fails it after the
                        // reader has finished, so the job's failure is the refusal itself.
                        .disableChaining();
        DataStream<MigratedEntry> totals =
                old.readKeyedState(
                        OperatorIdentifier.forUid(TwoStageLayout.TOTALS_UID),
                        new DailyTotalsReader(),
                        TypeInformation.of(MerchantDayKey.class),
                        entries);
        DataStream<MigratedEntry> floor =
                old.readUnionState(
                                OperatorIdentifier.forUid(TwoStageLayout.DEDUP_UID),
                                WatermarkFloor.STATE_NAME,
                                Types.LONG)
                        .map(new FloorEntries(), entries)
                        .name("Watermark floor");
        RecordedSetting horizon = lateness.recordedHorizon();
        RecordedSetting zone = finality.recordedZone();
        DataStream<MigratedEntry> settingsChecked =
                recordedSetting(old, TwoStageLayout.DEDUP_UID, horizon)
                        .union(recordedSetting(old, TwoStageLayout.TOTALS_UID, zone))
                        .keyBy(e -> e.option, Types.STRING)
                        .flatMap(new RequireRecorded(List.of(horizon, zone)), entries)
                        .name("Recorded settings checked");
        DataStream<MigratedEntry> placed =
                ids.union(totals)
                        .keyBy(e -> e.merchant, Types.STRING)
                        .process(new IdsOfOpenDays(), entries)
                        .name("Ids in their merchant's open days");
        StateBootstrapTransformation<MigratedEntry> merchantState =
                OperatorTransformation.bootstrapWith(placed.union(floor, settingsChecked))
                        .keyBy(e -> e.merchant, Types.STRING)
                        .transform(
                                (timestamp, path) ->
                                        SimpleOperatorFactory.of(
                                                new MerchantStateBootstrap(
                                                        0L, timestamp, path, finality, ttl)));
        SavepointWriter.fromExistingSavepoint(env, from, new HashMapStateBackend())
                .removeOperator(OperatorIdentifier.forUid(TwoStageLayout.DEDUP_UID))
                .removeOperator(OperatorIdentifier.forUid(TwoStageLayout.TOTALS_UID))
                .withOperator(
                        OperatorIdentifier.forUid(LedgerPipeline.MERCHANT_TOTALS_UID),
                        merchantState)
                .write(to);
        // One job, so that it also runs where a jar may start only one (the REST API's jar run).
        JobExecutionResult result =
                env.execute("effonce: migrate a savepoint to the merchant layout");
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
     * The values of a setting the old state recorded, for the bootstrap to check as a restore would
     * (it refuses a forbidden change before it writes anything).
     */
    private static DataStream<MigratedEntry> recordedSetting(
            SavepointReader old, String uid, RecordedSetting setting) throws Exception {
        String option = setting.option();
        return old.readUnionState(OperatorIdentifier.forUid(uid), setting.stateName(), Types.STRING)
                .map(
                        recorded -> MigratedEntry.recordedSetting(option, recorded),
                        TypeInformation.of(MigratedEntry.class))
                .name("Recorded " + option);
    }

    private static PostgresStoreConfig ledger(ReadableConfig config) {
        String file = config.get(MigrationOptions.LEDGER_PASSWORD_FILE);
        String url = require(config, MigrationOptions.LEDGER_URL);
        String user = config.get(MigrationOptions.LEDGER_USER);
        return file != null
                ? PostgresStoreConfig.withPasswordFile(url, user, file, "payments")
                : PostgresStoreConfig.withPasswordEnv(
                        url, user, config.get(MigrationOptions.LEDGER_PASSWORD_ENV), "payments");
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
