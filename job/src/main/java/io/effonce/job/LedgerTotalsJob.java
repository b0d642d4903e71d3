package io.effonce.job;

import io.effonce.jdbc.DriverRegistrations;
import io.effonce.job.decode.ChangeDecoder;
import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.LedgerRecordDeserializer;
import io.effonce.job.sidetables.SideTables;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import java.time.ZoneId;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job users submit: merchants' daily totals from the ledger's change topic, written effectively
 * once to {@code merchant_daily_totals}. Run with {@code --help} for the options.
 */
public final class LedgerTotalsJob {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerTotalsJob.class);

    private LedgerTotalsJob() {}

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } finally {
            // In a session cluster main runs in the JobManager, once per submission: the start-up
            // check's driver registration would keep this submission's classes there for good.
            DriverRegistrations.releaseLoadedBy(LedgerTotalsJob.class.getClassLoader());
        }
    }

    private static void run(String[] args) throws Exception {
        if (CommandLine.wantsHelp(args)) {
            System.out.println(CommandLine.help());
            return;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        try {
            Configuration config = JobConfiguration.merge(env.getConfiguration(), args);
            env.configure(config);
            // Needs no service, only the savepoint: checked whatever --startup-check says.
            List<String> savepoint =
                    SavepointCheck.run(config, env.getConfig().getSerializerConfig());
            if (!savepoint.isEmpty()) {
                throw new JobStartupException(savepoint.get(0));
            }
            if (config.get(JobOptions.STARTUP_CHECK)) {
                StartupCheck.run(
                        postgres(config),
                        require(
                                JobOptions.KAFKA_BOOTSTRAP.key(),
                                config.get(JobOptions.KAFKA_BOOTSTRAP)),
                        config.get(JobOptions.TOPIC));
            }
            LedgerPipeline.build(env, config, endpoints(config));
        } catch (JobStartupException | IllegalArgumentException | IllegalStateException e) {
            // One sentence for the person who submitted the job; the frames only at debug.
            LOG.error("The job cannot start: {}", e.getMessage());
            LOG.debug("Where the start-up failure was found", e);
            throw new JobStartupException(e.getMessage());
        }
        env.execute("effonce ledger totals");
    }

    /** The real Kafka source and PostgreSQL sinks, from options. */
    public static LedgerPipeline.Endpoints endpoints(ReadableConfig config) {
        PostgresStoreConfig postgres = postgres(config);
        return new LedgerPipeline.Endpoints(
                kafkaSource(config).build(),
                PostgresStores.deployed(postgres, MerchantDayRows.MAPPING),
                SideTables.lateEvents(postgres),
                SideTables.deadLetters(postgres));
    }

    /** The relay's topic, decoded in the source; offsets live in checkpoints. */
    static KafkaSourceBuilder<LedgerRecord> kafkaSource(ReadableConfig config) {
        String bootstrap =
                require(JobOptions.KAFKA_BOOTSTRAP.key(), config.get(JobOptions.KAFKA_BOOTSTRAP));
        ChangeDecoder decoder =
                new ChangeDecoder(
                        ZoneId.of(config.get(JobOptions.ZONE)),
                        config.get(JobOptions.DEAD_LETTER_MAX_CHARS),
                        config.get(JobOptions.EVENT_TIME_TOLERANCE));
        KafkaSourceBuilder<LedgerRecord> builder = KafkaSource.builder();
        KafkaClientDefaults.SETTINGS.forEach(builder::setProperty);
        long apiTimeout = config.get(JobOptions.KAFKA_API_TIMEOUT).toMillis();
        builder.setProperty("default.api.timeout.ms", String.valueOf(apiTimeout));
        // A request may not outlast the operation that sends it (Kafka's default is 30 s).
        builder.setProperty("request.timeout.ms", String.valueOf(Math.min(apiTimeout, 30_000)));
        return builder.setBootstrapServers(bootstrap)
                .setTopics(config.get(JobOptions.TOPIC))
                .setGroupId(config.get(JobOptions.GROUP_ID))
                .setStartingOffsets(startingOffsets(config.get(JobOptions.STARTING_OFFSETS)))
                .setDeserializer(
                        new LedgerRecordDeserializer(
                                decoder, config.get(JobOptions.EVENT_TIME_TOLERANCE)))
                .setProperty("isolation.level", "read_committed");
    }

    static PostgresStoreConfig postgres(ReadableConfig config) {
        String url = require(JobOptions.PG_URL.key(), config.get(JobOptions.PG_URL));
        String file = config.get(JobOptions.PG_PASSWORD_FILE);
        String user = config.get(JobOptions.PG_USER);
        String table = config.get(JobOptions.SINK_TABLE);
        return (file != null
                        ? PostgresStoreConfig.builder()
                                .url(url)
                                .username(user)
                                .passwordFile(file)
                                .table(table)
                                .build()
                        : PostgresStoreConfig.builder()
                                .url(url)
                                .username(user)
                                .passwordEnv(config.get(JobOptions.PG_PASSWORD_ENV))
                                .table(table)
                                .build())
                .toBuilder().options(config).build();
    }

    static OffsetsInitializer startingOffsets(JobOptions.StartingOffsets where) {
        return switch (where) {
            case EARLIEST -> OffsetsInitializer.earliest();
            case LATEST -> OffsetsInitializer.latest();
            case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
        };
    }

    private static String require(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    "--" + key + " is required; run with --help to list the options");
        }
        return value;
    }
}
