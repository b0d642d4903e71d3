package io.effonce.job.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.effonce.dedup.DedupOptions;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.MerchantDayRows;
import io.effonce.job.SavepointCheck;
import io.effonce.job.migrate.MigrateSavepoint;
import io.effonce.job.migrate.MigrationOptions;
import io.effonce.job.migrate.MigrationReport;
import io.effonce.job.testutils.SideTableRows;
import io.effonce.job.testutils.Topics;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every release's whole-job savepoint ({@link JobSavepointFixture}) migrates to release 0.3.0
 * ({@link MigrateSavepoint}: the state classes renamed, the two-stage layout of 0.1.0 rebuilt as
 * the merchant layout) and the job goes on from it exactly over the same topic: the restored sink
 * state is flushed into an empty table (phase one's totals reappear), the restored daily totals go
 * on from their sums (new payments at the end of phase one's day), the restored ids drop phase
 * one's re-deliveries, the restored floor rejects an old copy as late, and phase two is counted. An
 * unmigrated savepoint is refused in {@code main}, naming the migration ({@code
 * SavepointCheckTest}). A release that cannot restore an older savepoint needs a deliberate,
 * documented migration (job/README.md, "Upgrades"). Each nested class has a database of its own,
 * and each release migrated in the merchant layout one of its own too; all read the one fixture
 * topic.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class JobSavepointCompatibilityITCase {

    private static final String LEDGER_PASSWORD = "migration-reads-the-ledger";

    @BeforeAll
    static void theFixtureTopic(KafkaBootstrap kafka) throws Exception {
        KafkaTopics.create(
                kafka.servers(), JobSavepointFixture.TOPIC, JobSavepointFixture.PARTITIONS);
        // The same records at the same offsets as when the savepoint was taken, then what follows.
        Topics.publish(
                kafka.servers(),
                JobSavepointFixture.TOPIC,
                JobSavepointFixture.phaseOne().changes());
        Topics.publish(
                kafka.servers(),
                JobSavepointFixture.TOPIC,
                JobSavepointFixture.afterTheSavepoint());
    }

    @Nested
    class MerchantLayout {

        @TempDir Path dir;

        @ParameterizedTest(name = "release {0}")
        @ValueSource(strings = {"0.2.0", "0.2.1"})
        void theSavepointMigratesAndTheJobGoesOnExactly(
                String release, PostgresEndpoint classDb, KafkaBootstrap kafka) throws Exception {
            // A database of each release's own: the table the previous release's run left equal to
            // the end totals would answer the first wait before this run's restore flush ran.
            PostgresEndpoint db =
                    LocalServices.newDatabase(classDb, "release_" + release.replace('.', '_'));
            SchemaTool.applyAll(db);
            Path migrated = dir.resolve("migrated-" + release);
            MigrationReport report =
                    migrate(db, dir, copyOfFixture(dir, release), migrated, new Configuration());
            assertThat(report.openDays())
                    .as("every merchant-day of phase one is open at the savepoint")
                    .isEqualTo(JobSavepointFixture.phaseOne().expectedTotals().size());
            assertThat(report.idsRead()).as("remembered ids, each in its day").isPositive();
            assertThat(report.idsPlaced()).isEqualTo(report.idsRead());
            assertThat(report.sinkKeys())
                    .as("the sink's keys, each under the new class")
                    .isEqualTo(JobSavepointFixture.phaseOne().expectedTotals().size());
            assertThat(SavepointCheck.run(restoring(migrated), new SerializerConfigImpl()))
                    .as("the migrated savepoint names the job's own classes")
                    .isEmpty();
            assertThatThrownBy(
                            () ->
                                    migrate(
                                            db,
                                            dir,
                                            migrated,
                                            dir.resolve("again-" + release),
                                            new Configuration()))
                    .as("a migrated savepoint is not migrated again")
                    .hasMessageContaining("already names the state classes of release 0.3.0");

            String savepointOfTheRestoredJob =
                    goesOnExactly(db, kafka, dir, migrated, new Configuration());

            // The state records dedup.horizon=2 h: a restore that raises it is refused.
            Configuration raised = new Configuration();
            raised.set(DedupOptions.HORIZON, Duration.ofHours(3));
            aRestoreWithARaisedHorizonIsRefused(raised, db, kafka, dir, savepointOfTheRestoredJob);
        }

        @Test
        void aJobWithoutExactlyOnceCheckpointsIsRefusedBeforeItRestoresAnything(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Path savepoint = copyOfFixture(dir, JobSavepointFixture.RELEASE);
            Configuration atLeastOnce = new Configuration();
            atLeastOnce.set(
                    CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                    CheckpointingMode.AT_LEAST_ONCE);
            assertThatThrownBy(
                            () ->
                                    JobSavepointFixture.start(
                                            db,
                                            kafka.servers(),
                                            dir.resolve("checkpoints"),
                                            savepoint,
                                            atLeastOnce))
                    .isInstanceOf(IllegalConfigurationException.class)
                    .hasMessageContaining("execution.checkpointing.mode is AT_LEAST_ONCE")
                    .hasMessageContaining("EXACTLY_ONCE");
        }
    }

    @Nested
    class MigratedToTheMerchantLayout {

        @TempDir Path dir;

        @Test
        void theTwoStageSavepointMigratesAndTheMerchantLayoutGoesOnExactly(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Path old = copyOfFixture(dir, "0.1.0");
            Map<String, String> merchants =
                    new LinkedHashMap<>(JobSavepointFixture.phaseOne().merchants());
            String lastPayment = "a_199";
            String lastMerchant = merchants.remove(lastPayment);
            ledgerHolds(db, merchants);

            // The ledger lacks a payment whose ids the old state remembers: refused, naming it.
            assertThatThrownBy(
                            () ->
                                    migrate(
                                            db,
                                            dir,
                                            old,
                                            dir.resolve("refused"),
                                            new Configuration()))
                    .hasStackTraceContaining("have no payment with a merchant in the ledger")
                    .hasStackTraceContaining(lastPayment + ":SUCCEEDED");

            ledgerHolds(db, Map.of(lastPayment, lastMerchant));
            Path migrated = dir.resolve("migrated");
            MigrationReport report = migrate(db, dir, old, migrated, new Configuration());
            assertThat(report.openDays())
                    .as("every merchant-day of phase one is open at the savepoint")
                    .isEqualTo(JobSavepointFixture.phaseOne().expectedTotals().size());
            assertThat(report.idsRead())
                    .as("remembered ids, each found in the ledger")
                    .isPositive();
            assertThat(report.idsPlaced()).isEqualTo(report.idsRead());
            assertThat(report.idsPastHorizon()).isZero();
            assertThat(report.floor())
                    .as("the floor, late on 2026-11-28")
                    .isGreaterThan(Instant.parse("2026-11-28T20:00:00Z").toEpochMilli());
            assertThat(report.sinkKeys())
                    .as("the sink's keys, each under the new class")
                    .isPositive();

            goesOnExactly(db, kafka, dir, migrated, new Configuration());
        }
    }

    private static Configuration restoring(Path savepoint) {
        Configuration config = new Configuration();
        config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString());
        return config;
    }

    /** Runs the migration as a user would: the ledger role's password from a file. */
    private static MigrationReport migrate(
            PostgresEndpoint db, Path dir, Path from, Path to, Configuration options)
            throws Exception {
        Path password = dir.resolve("ledger-password");
        Files.writeString(password, LEDGER_PASSWORD + "\n");
        Configuration config = new Configuration(options);
        config.set(MigrationOptions.FROM, from.toUri().toString());
        config.set(MigrationOptions.TO, to.toUri().toString());
        config.set(MigrationOptions.LEDGER_URL, db.jdbcUrl());
        config.set(MigrationOptions.LEDGER_PASSWORD_FILE, password.toString());
        // As on a cluster with deploy/flink-conf/config.yaml: RocksDB, checkpoints, generic types
        // off and restarts on, which the migration (a batch job over canonical savepoints) must
        // override.
        Configuration cluster = new Configuration();
        cluster.setString("state.backend.type", "rocksdb");
        cluster.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
        cluster.set(PipelineOptions.GENERIC_TYPES, false);
        cluster.setString("restart-strategy.type", "exponential-delay");
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(cluster);
        env.setParallelism(JobSavepointFixture.PARALLELISM);
        return MigrateSavepoint.run(env, config);
    }

    /** Payments of the ledger, read by the migration as effonce_recount (SELECT only). */
    private static void ledgerHolds(PostgresEndpoint db, Map<String, String> merchants)
            throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                PreparedStatement insert =
                        c.prepareStatement(
                                "INSERT INTO payments (payment_id, caller_id, client_key,"
                                        + " merchant_id, fingerprint, amount, currency, state,"
                                        + " updated_at) VALUES (?, 'fixture', ?, ?, 'f', 100,"
                                        + " 'EUR', 'SUCCEEDED', now())")) {
            s.execute("ALTER ROLE effonce_recount PASSWORD '" + LEDGER_PASSWORD + "'");
            for (Map.Entry<String, String> p : merchants.entrySet()) {
                insert.setString(1, p.getKey());
                insert.setString(2, p.getKey());
                insert.setString(3, p.getValue());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    /** A restore of {@code savepoint} with a raised dedup.horizon fails and writes nothing. */
    private static void aRestoreWithARaisedHorizonIsRefused(
            Configuration raised,
            PostgresEndpoint db,
            KafkaBootstrap kafka,
            Path dir,
            String savepoint)
            throws Exception {
        JobClient refused =
                JobSavepointFixture.start(
                        db,
                        kafka.servers(),
                        dir.resolve("checkpoints-raised"),
                        Path.of(URI.create(savepoint)),
                        raised);
        assertThatThrownBy(() -> refused.getJobExecutionResult().get())
                .hasStackTraceContaining("SettingChangedException")
                .hasStackTraceContaining(
                        "The restored state was built with dedup.horizon=2 h, this job has"
                                + " dedup.horizon=3 h");
        assertThat(new TotalsTable<>(db, MerchantDayRows.MAPPING).totals())
                .as("the refused job wrote nothing")
                .isEqualTo(JobSavepointFixture.expectedAtTheEnd());
    }

    /**
     * Restores the job from {@code savepoint} with {@code options}, requires the totals, the late
     * copy and nothing else, and stops it with a savepoint, which it returns.
     */
    private static String goesOnExactly(
            PostgresEndpoint db,
            KafkaBootstrap kafka,
            Path dir,
            Path savepoint,
            Configuration options)
            throws Exception {
        JobClient job =
                JobSavepointFixture.start(
                        db, kafka.servers(), dir.resolve("checkpoints"), savepoint, options);
        Map<MerchantDayKey, Long> expected = JobSavepointFixture.expectedAtTheEnd();
        String savepointOfTheRestoredJob = null;
        try {
            try {
                JobSavepointFixture.awaitTotals(
                        "the sink to equal phase one (restored), the end of its day and phase two",
                        db,
                        expected);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(
                        "The restored job never reached the expected totals; keys that differ"
                                + " (expected vs actual): "
                                + differences(
                                        expected,
                                        new TotalsTable<>(db, MerchantDayRows.MAPPING).totals())
                                + "; late_events: "
                                + SideTableRows.lateEventIds(db),
                        e);
            }
            await("the old copy in late_events")
                    .atMost(JobSavepointFixture.TIMEOUT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> !SideTableRows.lateEventIds(db).isEmpty());
            assertThat(SideTableRows.lateEventIds(db)).containsExactly("a_1:SUCCEEDED");
            assertThat(new TotalsTable<>(db, MerchantDayRows.MAPPING).totals()).isEqualTo(expected);
            savepointOfTheRestoredJob =
                    job.stopWithSavepoint(
                                    false,
                                    dir.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();
            return savepointOfTheRestoredJob;
        } finally {
            if (savepointOfTheRestoredJob == null) {
                job.cancel().get();
            }
        }
    }

    private static String differences(
            Map<MerchantDayKey, Long> expected, Map<MerchantDayKey, Long> actual) {
        Set<MerchantDayKey> keys = new TreeSet<>(Comparator.comparing(MerchantDayKey::toString));
        keys.addAll(expected.keySet());
        keys.addAll(actual.keySet());
        return keys.stream()
                .filter(k -> !Objects.equals(expected.get(k), actual.get(k)))
                .limit(10)
                .map(k -> k + " " + expected.get(k) + " vs " + actual.get(k))
                .toList()
                .toString();
    }

    private static Path copyOfFixture(Path dir, String release) throws Exception {
        String resource = "/savepoints/" + release + "/job/_metadata";
        URL url = JobSavepointCompatibilityITCase.class.getResource(resource);
        assertThat(url).as("fixture %s on the test classpath", resource).isNotNull();
        Path from = Path.of(url.toURI()).getParent();
        Path to = dir.resolve("savepoint-" + release);
        JobSavepointFixture.copyTree(from, to);
        return to;
    }
}
