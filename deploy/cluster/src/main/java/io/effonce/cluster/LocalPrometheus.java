package io.effonce.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * Debian's {@code prometheus} ({@value #BINARY}) as its own process on this machine: it scrapes a
 * local cluster's reporters ({@link PrometheusPages}'s port range, scrape job {@code
 * effonce-flink}) and relays (scrape job {@code effonce-relay}) every second, evaluates the given
 * rule files every second, and answers queries over its HTTP API.
 */
public final class LocalPrometheus implements AutoCloseable {

    public static final String BINARY = "/usr/bin/prometheus";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final URI base;

    private LocalPrometheus(Process process, URI base) {
        this.process = process;
        this.base = base;
    }

    /** Whether Debian's package is installed here. */
    public static boolean installed() {
        return Files.isExecutable(Path.of(BINARY));
    }

    /**
     * Starts Prometheus with its data and log in {@code dir}, scraping the cluster's reporters and
     * the relays at {@code relays} (host:port each), evaluating {@code ruleFiles}; returns once it
     * is ready.
     */
    public static LocalPrometheus start(Path dir, List<String> relays, List<Path> ruleFiles)
            throws IOException {
        return start(dir, PrometheusPages.defaultPorts(), relays, ruleFiles);
    }

    /** The same, scraping the Flink reporters on {@code flinkPorts} alone. */
    public static LocalPrometheus start(
            Path dir, List<Integer> flinkPorts, List<String> relays, List<Path> ruleFiles)
            throws IOException {
        Files.createDirectories(dir);
        int port = FreePorts.take(1)[0];
        String flinkTargets =
                flinkPorts.stream()
                        .map(p -> "'127.0.0.1:" + p + "'")
                        .collect(Collectors.joining(", "));
        String relayTargets =
                relays.stream().map(r -> "'" + r + "'").collect(Collectors.joining(", "));
        String rules =
                ruleFiles.stream()
                        .map(f -> "  - '" + f.toAbsolutePath() + "'")
                        .collect(Collectors.joining("\n"));
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(
                config,
                "global:\n"
                        + "  scrape_interval: 1s\n"
                        + "  evaluation_interval: 1s\n"
                        + "scrape_configs:\n"
                        + "  - job_name: effonce-flink\n"
                        + "    static_configs:\n"
                        + "      - targets: ["
                        + flinkTargets
                        + "]\n"
                        + "  - job_name: effonce-relay\n"
                        + "    static_configs:\n"
                        + "      - targets: ["
                        + relayTargets
                        + "]\n"
                        + "rule_files:\n"
                        + rules
                        + "\n");
        Process process =
                new ProcessBuilder(
                                BINARY,
                                "--config.file=" + config,
                                "--storage.tsdb.path=" + dir.resolve("data"),
                                "--web.listen-address=127.0.0.1:" + port)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("prometheus.log").toFile())
                        .start();
        LocalPrometheus prometheus =
                new LocalPrometheus(process, URI.create("http://127.0.0.1:" + port));
        try {
            Awaitility.await("Prometheus ready on port " + port + " (log: " + dir + ")")
                    .atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(200))
                    .until(prometheus::ready);
        } catch (RuntimeException e) {
            prometheus.close();
            throw e;
        }
        return prometheus;
    }

    /** Its web address, e.g. for a person to open. */
    public URI address() {
        return base;
    }

    private boolean ready() {
        if (!process.isAlive()) {
            throw new IllegalStateException("Prometheus exited with " + process.exitValue());
        }
        try {
            return get("/-/ready").statusCode() == 200;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** The largest value of an instant query's result, or empty if it has no series. */
    public OptionalDouble max(String promQl) {
        JsonNode result = query(promQl);
        OptionalDouble max = OptionalDouble.empty();
        for (JsonNode series : result) {
            double v = Double.parseDouble(series.path("value").get(1).asText());
            if (max.isEmpty() || v > max.getAsDouble()) {
                max = OptionalDouble.of(v);
            }
        }
        return max;
    }

    /** The series an instant query returns (the API's {@code data.result}). */
    public JsonNode query(String promQl) {
        return data("/api/v1/query?query=" + URLEncoder.encode(promQl, StandardCharsets.UTF_8))
                .path("result");
    }

    /** The names of the alerts in state {@code state} ({@code pending} or {@code firing}). */
    public List<String> alerts(String state) {
        List<String> names = new ArrayList<>();
        for (JsonNode alert : data("/api/v1/alerts").path("alerts")) {
            if (state.equals(alert.path("state").asText())) {
                names.add(alert.path("labels").path("alertname").asText());
            }
        }
        return names;
    }

    private JsonNode data(String path) {
        try {
            HttpResponse<String> response = get(path);
            JsonNode body = JSON.readTree(response.body());
            if (!"success".equals(body.path("status").asText())) {
                throw new IllegalStateException("Prometheus answered " + response.body());
            }
            return body.path("data");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpResponse<String> get(String path) throws IOException {
        try {
            return HTTP.send(
                    HttpRequest.newBuilder(base.resolve(path))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
