package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.connector.postgresql.PostgresConnectorConfig.LsnFlushMode;
import io.debezium.connector.postgresql.PostgresConnectorConfig.OffsetSlotMismatchStrategy;
import io.debezium.connector.postgresql.PostgresConnectorConfig.SnapshotMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.OptionSpec;

class RelayOptionsTest {

    @TempDir Path dir;

    @Test
    void defaultsStreamOnlyNewChangesWithOneSecondHeartbeats() {
        RelayOptions o = RelayCli.parse(new String[0], Map.of());
        assertThat(o.topic()).isEqualTo("effonce.public.payments");
        assertThat(o.heartbeatDestination()).isEqualTo("__debezium-heartbeat.effonce");
        assertThat(o.heartbeatInterval).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.snapshotMode).isEqualTo(SnapshotMode.NO_DATA);
        assertThat(o.slot).isEqualTo("effonce_relay");
        assertThat(o.publication).isEqualTo("effonce_payments");
        assertThat(o.partitions).isEqualTo(4);
        assertThat(o.lsnFlushMode).isEqualTo(LsnFlushMode.CONNECTOR);
        assertThat(o.offsetMismatchStrategy).isEqualTo(OffsetSlotMismatchStrategy.TRUST_OFFSET);
    }

    @Test
    void environmentSetsOptionsAndTheCommandLineWins() {
        Map<String, String> env =
                Map.of(
                        "EFFONCE_PG_URL", "jdbc:postgresql://db.example:6543/ledger",
                        "EFFONCE_RELAY_SLOT", "from_env",
                        "EFFONCE_TOPIC_PREFIX", "envprefix",
                        "EFFONCE_RELAY_HEARTBEAT_INTERVAL", "250ms",
                        "EFFONCE_RELAY_PARTITIONS", "12");
        RelayOptions o = RelayCli.parse(new String[] {"--slot", "from_cli"}, env);
        assertThat(o.dbUrl).isEqualTo("jdbc:postgresql://db.example:6543/ledger");
        assertThat(o.slot).isEqualTo("from_cli");
        assertThat(o.topic()).isEqualTo("envprefix.public.payments");
        assertThat(o.heartbeatInterval).isEqualTo(Duration.ofMillis(250));
        assertThat(o.partitions).isEqualTo(12);
    }

    @Test
    void passwordComesFromAFileOrTheEnvironmentAndIsNeverPrinted() throws Exception {
        Path file = dir.resolve("pw");
        Files.writeString(file, "from-file\nignored\n");
        RelayOptions fromFile =
                RelayCli.parse(
                        new String[] {"--db-password-file", file.toString()},
                        Map.of("EFFONCE_PG_PASSWORD", "from-env"));
        assertThat(fromFile.dbPassword).isEqualTo("from-file");
        RelayOptions fromEnv =
                RelayCli.parse(new String[0], Map.of("EFFONCE_PG_PASSWORD", "from-env"));
        assertThat(fromEnv.dbPassword).isEqualTo("from-env");
        assertThat(fromEnv.toString()).doesNotContain("from-env");
        RelayOptions viaFileEnv =
                RelayCli.parse(new String[0], Map.of("EFFONCE_PG_PASSWORD_FILE", file.toString()));
        assertThat(viaFileEnv.dbPassword).isEqualTo("from-file");
    }

    @Test
    void helpDocumentsEveryOptionWithItsEnvironmentVariable() {
        StringWriter out = new StringWriter();
        int code =
                RelayCli.run(
                        new String[] {"--help"},
                        Map.of(),
                        new PrintWriter(out),
                        new PrintWriter(new StringWriter()));
        assertThat(code).isZero();
        String help = out.toString();
        for (OptionSpec option :
                RelayCli.commandLine(new RelayOptions(), Map.of()).getCommandSpec().options()) {
            if (option.hidden()) {
                assertThat(help).doesNotContain(option.longestName());
                continue;
            }
            assertThat(help).contains(option.longestName());
            if (!option.usageHelp()
                    && !option.versionHelp()
                    && !option.isMultiValue()
                    && !option.longestName().equals("--db-password-file")) {
                assertThat(help).contains("[" + EnvDefaults.variable(option.longestName()) + "]");
            }
        }
    }

    @Test
    void versionIsPrintedAndExitsZeroWithoutStartingTheRelay() {
        StringWriter out = new StringWriter();
        int code =
                RelayCli.run(
                        new String[] {"--version"},
                        Map.of(),
                        new PrintWriter(out),
                        new PrintWriter(new StringWriter()));
        assertThat(code).isZero();
        assertThat(out.toString()).contains("effonce ledger relay");
    }

    @Test
    void wrongValuesExitWithUsageErrorAndSayWhatIsExpected() {
        StringWriter err = new StringWriter();
        int code =
                RelayCli.run(
                        new String[] {"--snapshot-mode", "sometimes"},
                        Map.of(),
                        new PrintWriter(new StringWriter()),
                        new PrintWriter(err));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--snapshot-mode must be one of");
        assertThatThrownBy(() -> RelayCli.parse(new String[] {"--slot", "Bad-Name"}, Map.of()))
                .hasMessageContaining("--slot must be 1-63 lower-case letters");
        assertThatThrownBy(
                        () ->
                                RelayCli.parse(
                                        new String[] {"--db-url", "jdbc:mysql://x/y"}, Map.of()))
                .hasMessageContaining("jdbc:postgresql://HOST:PORT/DB");
        assertThatThrownBy(
                        () ->
                                RelayCli.parse(
                                        new String[] {"--heartbeat-interval", "soon"}, Map.of()))
                .hasMessageContaining("not a duration");
    }

    @Test
    void engineConfigurationCapturesOnlyPaymentsWithPgoutput() {
        RelayOptions o =
                RelayCli.parse(
                        new String[] {
                            "--db-url", "jdbc:postgresql://10.0.0.5:5433/ledger?ssl=true",
                            "--heartbeat-interval", "0",
                            "--snapshot-mode", "initial"
                        },
                        Map.of("EFFONCE_PG_PASSWORD", "pw"));
        Properties p = EngineConfig.properties(o, new Preflight.Findings(true, 170006));
        assertThat(p.getProperty("database.hostname")).isEqualTo("10.0.0.5");
        assertThat(p.getProperty("database.port")).isEqualTo("5433");
        assertThat(p.getProperty("database.dbname")).isEqualTo("ledger");
        assertThat(p.getProperty("database.sslmode"))
                .as("ssl=true in the URL means verify-full, as to pgjdbc")
                .isEqualTo("verify-full");
        assertThat(p.getProperty("plugin.name")).isEqualTo("pgoutput");
        assertThat(p.getProperty("table.include.list")).isEqualTo("public.payments");
        assertThat(p.getProperty("publication.autocreate.mode")).isEqualTo("disabled");
        assertThat(p.getProperty("heartbeat.interval.ms")).isEqualTo("0");
        assertThat(p.getProperty("snapshot.mode")).isEqualTo("initial");
        assertThat(p.getProperty("offset.storage")).endsWith("FileOffsetBackingStore");
        assertThat(EngineConfig.properties(o, new Preflight.Findings(false, 170006)))
                .containsEntry("publication.autocreate.mode", "filtered");
    }

    @Test
    void modesAreDebeziumsOwnNamesFromTheCommandLineOrTheEnvironment() {
        RelayOptions o =
                RelayCli.parse(
                        new String[] {
                            "--snapshot-mode", "when_needed", "--lsn-flush-mode", "manual"
                        },
                        Map.of("EFFONCE_RELAY_OFFSET_MISMATCH_STRATEGY", "trust_greater_lsn"));
        Properties p = EngineConfig.properties(o, new Preflight.Findings(true, 170006));
        assertThat(p.getProperty("snapshot.mode")).isEqualTo("when_needed");
        assertThat(p.getProperty("lsn.flush.mode")).isEqualTo("manual");
        assertThat(p.getProperty("offset.mismatch.strategy")).isEqualTo("trust_greater_lsn");
    }

    @Test
    void aSnapshotModeThatNeedsMoreConfigurationIsRefusedByName() {
        for (String mode : new String[] {"custom", "configuration_based", "never"}) {
            assertThatThrownBy(
                            () -> RelayCli.parse(new String[] {"--snapshot-mode", mode}, Map.of()))
                    .as(mode)
                    .hasMessageContaining(
                            "--snapshot-mode must be one of always, initial, no_data, initial_only,"
                                    + " when_needed, was '"
                                    + mode
                                    + "'");
        }
        assertThatThrownBy(
                        () -> RelayCli.parse(new String[] {"--lsn-flush-mode", "often"}, Map.of()))
                .hasMessageContaining(
                        "--lsn-flush-mode must be one of connector, manual, connector_and_driver");
    }

    @Test
    void heartbeatValueIsSmallJson() throws Exception {
        JsonNode v = new ObjectMapper().readTree(Heartbeats.value(1_700_000_000_000L, 42L));
        assertThat(v.path("heartbeat").asBoolean()).isTrue();
        assertThat(v.path("ts_ms").asLong()).isEqualTo(1_700_000_000_000L);
        assertThat(v.path("lsn").asLong()).isEqualTo(42L);
        assertThat(new ObjectMapper().readTree(Heartbeats.value(5, null)).path("lsn").isNull())
                .isTrue();
    }

    @Test
    void durationsAndLsnsReadAndPrintAsOperatorsWriteThem() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("PT2M")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("0")).isZero();
        assertThat(RelayMetrics.formatLsn(0x16B3748L)).isEqualTo("0/16B3748");
        assertThat(RelayMetrics.formatLsn((3L << 32) | 0xA0L)).isEqualTo("3/A0");
    }
}
