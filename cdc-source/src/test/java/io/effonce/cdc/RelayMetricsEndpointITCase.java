package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.testutils.ChangeAudit;
import io.effonce.cdc.testutils.Relays;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay's Prometheus endpoint against a real ledger and broker, logged in as the
 * least-privilege role: it counts what Kafka acknowledged, reads its slot's retained WAL, and its
 * page passes Debian's {@code promtool check metrics}.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class RelayMetricsEndpointITCase {

    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

    @TempDir Path dir;

    @Test
    void thePageCountsWhatKafkaAcknowledgedAndTheSlotsWal(PostgresEndpoint db, KafkaBootstrap kafka)
            throws Exception {
        ChangeAudit audit = ChangeAudit.install(db);
        Relays setup =
                new Relays(
                        db.withPasswordFor("effonce_relay", "relay-secret"),
                        kafka.servers(),
                        "metrics",
                        dir);
        RelayOptions options = RelayCli.parse(setup.argsArray("--metrics-port", "0"), setup.env());
        try (LedgerRelay relay = LedgerRelay.start(options)) {
            new LedgerWorkload(WorkloadOptions.builder().count(200).scope("m").seed(3).build())
                    .run(db);
            long changes = audit.count();
            String labels = "{slot=\"" + options.slot + "\",topic=\"" + options.topic() + "\"}";
            URI page =
                    URI.create(
                            "http://127.0.0.1:" + relay.metricsPort().orElseThrow() + "/metrics");
            await("every change of the workload counted on the metrics page")
                    .atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(200))
                    .until(
                            () ->
                                    get(page)
                                            .contains(
                                                    "effonce_relay_changes_published_total"
                                                            + labels
                                                            + " "
                                                            + changes
                                                            + "\n"));
            String text = get(page);
            assertThat(text)
                    .containsPattern("effonce_relay_slot_retained_wal_bytes\\{[^}]*} \\d+\\n")
                    .contains("effonce_relay_last_change_delay_seconds" + labels);
            assertThat(promtoolCheck(text)).as("promtool check metrics").isEmpty();
        } finally {
            setup.dropSlot();
        }
    }

    private static String get(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> r =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(uri).build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** What {@code promtool check metrics} finds wrong with {@code text}: empty when nothing. */
    private static String promtoolCheck(String text) throws IOException, InterruptedException {
        if (!Files.isExecutable(PROMTOOL)) {
            throw new IllegalStateException(
                    "This test needs Debian's prometheus package ("
                            + PROMTOOL
                            + "); .ci/run installs it: apt-get install -y"
                            + " --no-install-recommends prometheus");
        }
        Process p =
                new ProcessBuilder(PROMTOOL.toString(), "check", "metrics")
                        .redirectErrorStream(true)
                        .start();
        try (var in = p.getOutputStream()) {
            in.write(text.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
        return p.exitValue() == 0 ? out.strip() : "exit " + p.exitValue() + ": " + out;
    }
}
