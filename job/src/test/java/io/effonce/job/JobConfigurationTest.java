package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.PostgresStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One configuration path: the cluster's config.yaml, then the program arguments on top. */
class JobConfigurationTest {

    /** A value other than the default for every option the job reads, as it is written. */
    private static final Map<String, String> SAMPLES =
            new TreeMap<>(
                    Map.ofEntries(
                            Map.entry("kafka.bootstrap-servers", "broker-1:9092"),
                            Map.entry("kafka.topic", "ledger.public.payments"),
                            Map.entry("kafka.group-id", "totals-eu"),
                            Map.entry("kafka.starting-offsets", "latest"),
                            Map.entry("kafka.api-timeout", "20 s"),
                            Map.entry("postgres.url", "jdbc:postgresql://db:5432/ledger"),
                            Map.entry("postgres.user", "sink_eu"),
                            Map.entry("postgres.password-file", "/run/secrets/pg"),
                            Map.entry("postgres.password-env", "PG_SINK_PASSWORD"),
                            Map.entry("totals.zone", "Europe/Berlin"),
                            Map.entry("totals.counted-states", "SUCCEEDED;FAILED"),
                            Map.entry("watermark.out-of-orderness", "7 s"),
                            Map.entry("network.buffer-timeout", "25 ms"),
                            Map.entry("watermark.idleness", "45 s"),
                            Map.entry("watermark.start-hold", "50 s"),
                            Map.entry("source.backlog-threshold", "30 s"),
                            Map.entry("watermark.hold-during-snapshot", "false"),
                            Map.entry("startup-check", "false"),
                            Map.entry("event-time.tolerance", "10 min"),
                            Map.entry("pipeline.max-parallelism", "256"),
                            Map.entry("dead-letters.max-chars", "2048"),
                            Map.entry("pipeline.bundle-size", "500"),
                            Map.entry("pipeline.allow-empty-merchant-stage", "true"),
                            Map.entry("pipeline.bundle-delay", "20 ms"),
                            Map.entry("dedup.horizon", "3 h"),
                            Map.entry("dedup.watermark-floor.enabled", "false"),
                            Map.entry("dedup.state-ttl", "3 d"),
                            Map.entry("sink.batch-size", "700"),
                            Map.entry("sink.flush-interval", "150 ms"),
                            Map.entry("sink.reset-on-fresh-start", "true"),
                            Map.entry("sink.restore-flush", "FULL"),
                            Map.entry("sink.retired-retention", "30 min"),
                            Map.entry("sink.owner-lease", "20 min"),
                            Map.entry("sink.require-deployment-number", "false"),
                            Map.entry("sink.table", "totals_eu"),
                            Map.entry("sink.max-retries", "9"),
                            Map.entry("sink.lost-write-check", "false"),
                            Map.entry("sink.retry-backoff", "300 ms"),
                            Map.entry("sink.idle-in-transaction-timeout", "7 s")));

    @TempDir Path dir;

    @Test
    void theHelpShowsEachOptionsDescriptionAsText() {
        String help = CommandLine.help();
        assertThat(help)
                .contains("--kafka.bootstrap-servers")
                .doesNotContain("Description@")
                .doesNotContainPattern("</?(code|br|ul|li|a|p|strong)\\b")
                .doesNotContain("&quot;");
        assertThat(help.lines().filter(l -> l.startsWith("      ") && !l.contains("default:")))
                .as("a description line under every option")
                .allMatch(l -> l.strip().length() > 10);
    }

    @Test
    void everyOptionHasASample() {
        assertThat(SAMPLES.keySet())
                .as("add a sample for each new option")
                .containsExactlyInAnyOrderElementsOf(CommandLine.knownOptions().keySet());
    }

    @Test
    void everyOptionIsReadTheSameFromConfigYamlAndFromTheArguments() throws Exception {
        StringBuilder yaml = new StringBuilder();
        List<String> args = new ArrayList<>();
        SAMPLES.forEach(
                (key, value) -> {
                    yaml.append(key).append(": ").append(yamlValue(value)).append('\n');
                    args.add("--" + key);
                    args.add(value);
                });
        Files.writeString(dir.resolve("config.yaml"), yaml);
        Configuration fromYaml =
                JobConfiguration.merge(
                        GlobalConfiguration.loadConfiguration(dir.toString()), new String[0]);
        Configuration fromArgs =
                JobConfiguration.merge(new Configuration(), args.toArray(String[]::new));

        for (ConfigOption<?> option : CommandLine.knownOptions().values()) {
            Object yamlValue = fromYaml.get(option);
            assertThat(yamlValue).as(option.key()).isEqualTo(fromArgs.get(option));
            assertThat(yamlValue)
                    .as("%s differs from its default", option.key())
                    .isNotEqualTo(option.hasDefaultValue() ? option.defaultValue() : null);
        }
        assertThat(fromYaml.get(JobOptions.STARTING_OFFSETS))
                .isEqualTo(JobOptions.StartingOffsets.LATEST);
    }

    @Test
    void theRemovedLayoutOptionIsRefusedNamingTheMigrationFromArgumentsAndFromConfigYaml()
            throws Exception {
        assertThatThrownBy(
                        () ->
                                JobConfiguration.merge(
                                        new Configuration(),
                                        new String[] {"--pipeline.layout", "MERCHANT"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Option --pipeline.layout was removed in 0.3.0")
                .hasMessageContaining("MigrateSavepoint");
        Files.writeString(dir.resolve("config.yaml"), "pipeline.layout: MERCHANT\n");
        assertThatThrownBy(
                        () ->
                                JobConfiguration.merge(
                                        GlobalConfiguration.loadConfiguration(dir.toString()),
                                        new String[0]))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("Option pipeline.layout was removed in 0.3.0")
                .hasMessageContaining("drop the option");
    }

    @Test
    void theSinksSessionOptionsReachItsStoreConfig() {
        Configuration merged =
                JobConfiguration.merge(
                        new Configuration(),
                        new String[] {
                            "--postgres.url", "jdbc:postgresql://db:5432/ledger",
                            "--sink.max-retries", "9",
                            "--sink.retry-backoff", "300 ms",
                            "--sink.idle-in-transaction-timeout", "7 s"
                        });
        PostgresStoreConfig store = LedgerTotalsJob.postgres(merged);
        assertThat(store.maxRetries()).isEqualTo(9);
        assertThat(store.retryBackoff()).isEqualTo(Duration.ofMillis(300));
        assertThat(store.idleInTransactionTimeout()).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void theArgumentsWinOverConfigYaml() throws Exception {
        Files.writeString(
                dir.resolve("config.yaml"), "kafka.topic: from-yaml\nsink.batch-size: 10\n");
        Configuration merged =
                JobConfiguration.merge(
                        GlobalConfiguration.loadConfiguration(dir.toString()),
                        new String[] {"--kafka.topic", "from-args"});
        assertThat(merged.get(JobOptions.TOPIC)).containsExactly("from-args");
        assertThat(merged.getString("sink.batch-size", null)).isEqualTo("10");
    }

    @Test
    void aShardedLedgersTopicsAreOneListAndAnEmptyOneIsRefused() {
        Configuration merged =
                JobConfiguration.merge(
                        new Configuration(),
                        new String[] {"--kafka.topic", "a.public.payments;b.public.payments"});
        assertThat(merged.get(JobOptions.TOPIC))
                .containsExactly("a.public.payments", "b.public.payments");
        assertThatThrownBy(
                        () ->
                                JobConfiguration.merge(
                                        new Configuration(), new String[] {"--kafka.topic", " "}))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("kafka.topic")
                .hasMessageContaining("separated by ';'");
    }

    @Test
    void theOldMaxParallelismNameStillWorks() {
        Configuration merged =
                JobConfiguration.merge(
                        new Configuration(), new String[] {"--job.max-parallelism", "64"});
        assertThat(merged.get(JobOptions.MAX_PARALLELISM)).isEqualTo(64);
    }

    @Test
    void aBadValueNamesItsOptionAndTheFix() {
        assertThatThrownBy(
                        () ->
                                JobConfiguration.merge(
                                        new Configuration(),
                                        new String[] {"--kafka.starting-offsets", "sideways"}))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("kafka.starting-offsets")
                .hasMessageContaining("--help");
        assertThatThrownBy(
                        () ->
                                JobConfiguration.merge(
                                        new Configuration(),
                                        new String[] {"--totals.zone", "Mars/Olympus"}))
                .hasMessageContaining("totals.zone")
                .hasMessageContaining("Europe/Berlin");
        assertThatThrownBy(
                        () ->
                                JobConfiguration.merge(
                                        new Configuration(),
                                        new String[] {"--pipeline.max-parallelism", "0"}))
                .hasMessageContaining("pipeline.max-parallelism");
        assertThatThrownBy(
                        () ->
                                JobConfiguration.merge(
                                        new Configuration(), new String[] {"--kafka.topc", "x"}))
                .hasMessageContaining("--kafka.topc");
    }

    /** Lists are ';'-separated on the command line, a YAML list in config.yaml. */
    private static String yamlValue(String value) {
        return value.contains(";") ? "[" + value.replace(";", ", ") + "]" : value;
    }
}
