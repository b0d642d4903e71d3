package io.effonce.testing.kafka;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.effonce.testing.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A Kafka Connect worker in distributed mode, in its own JVM ({@code ConnectDistributed}, as a
 * Connect cluster runs it): its configs, offsets and statuses in topics on the test's broker, JSON
 * converters with schemas on or off, its REST API on a free local port. {@link #kill()} is SIGKILL
 * (no offset flush: what the task had sent since its last flush is sent again); {@link #restart()}
 * starts a worker of the same group, which takes the connector and its task over.
 */
public final class ConnectWorker implements AutoCloseable {

    private static final String MAIN = "org.apache.kafka.connect.cli.ConnectDistributed";
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path properties;
    private final Path log;
    private final URI rest;
    private final List<String> jvmOptions;
    private final HttpClient http = HttpClient.newHttpClient();
    private ChildJvm process;

    private ConnectWorker(Path properties, Path log, URI rest, List<String> jvmOptions) {
        this.properties = properties;
        this.log = log;
        this.rest = rest;
        this.jvmOptions = jvmOptions;
    }

    /**
     * Starts a worker of group {@code group} and returns once its REST API answers.
     *
     * @param schemas whether the JSON converters write the schemas-on form ({@code schema} + {@code
     *     payload})
     * @param offsetFlushInterval how often the worker records its tasks' source offsets
     */
    public static ConnectWorker start(
            String kafka, String group, boolean schemas, Duration offsetFlushInterval, Path dir)
            throws IOException {
        return start(
                kafka, group, schemas, offsetFlushInterval, dir, Map.of(), ChildJvm.QUICK_START);
    }

    /**
     * The same with more worker properties ({@code producer.*} for the tasks' producer, say) and
     * the worker JVM's options.
     */
    public static ConnectWorker start(
            String kafka,
            String group,
            boolean schemas,
            Duration offsetFlushInterval,
            Path dir,
            Map<String, String> workerProperties,
            List<String> jvmOptions)
            throws IOException {
        int port = freePort();
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", kafka);
        p.setProperty("group.id", group);
        p.setProperty("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        p.setProperty("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        p.setProperty("key.converter.schemas.enable", Boolean.toString(schemas));
        p.setProperty("value.converter.schemas.enable", Boolean.toString(schemas));
        for (String store : List.of("config", "offset", "status")) {
            p.setProperty(store + ".storage.topic", group + "-" + store + "s");
            p.setProperty(store + ".storage.replication.factor", "1");
        }
        p.setProperty("offset.storage.partitions", "1");
        p.setProperty("status.storage.partitions", "1");
        p.setProperty("offset.flush.interval.ms", Long.toString(offsetFlushInterval.toMillis()));
        p.setProperty("listeners", "http://127.0.0.1:" + port);
        p.setProperty("rest.advertised.host.name", "127.0.0.1");
        p.setProperty("rest.advertised.port", Integer.toString(port));
        // A killed worker's successor gets its task at once, not after the default five minutes
        // that wait for the lost worker to come back.
        p.setProperty("scheduled.rebalance.max.delay.ms", "0");
        p.setProperty("session.timeout.ms", "6000");
        p.setProperty("heartbeat.interval.ms", "2000");
        // Connector plugins from this class path, found through their service manifests.
        p.setProperty("plugin.discovery", "service_load");
        // Secrets in connector configs as ${file:<path>:<key>}, never in the config itself.
        p.setProperty("config.providers", "file");
        p.setProperty(
                "config.providers.file.class",
                "org.apache.kafka.common.config.provider.FileConfigProvider");
        workerProperties.forEach(p::setProperty);
        Path file = dir.resolve(group + "-worker.properties");
        Files.createDirectories(dir);
        try (Writer w = Files.newBufferedWriter(file)) {
            p.store(w, "Kafka Connect worker of a test");
        }
        ConnectWorker worker =
                new ConnectWorker(
                        file,
                        dir.resolve(group + "-worker.log"),
                        URI.create("http://127.0.0.1:" + port),
                        jvmOptions);
        worker.launch();
        return worker;
    }

    /** Starts the worker process again (after {@link #kill()}); returns once its API answers. */
    public void restart() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the Connect worker still runs");
        }
        launch();
    }

    private void launch() throws IOException {
        process = ChildJvm.start(MAIN, jvmOptions, List.of(properties.toString()), Map.of(), log);
        await("the Connect worker's REST API at " + rest + " (log: " + log + ")")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .failFast("the Connect worker exited (log: " + log + ")", () -> !process.isAlive())
                .until(() -> get("/connectors") != null);
    }

    /** Creates or updates connector {@code name} with {@code config}. */
    public void putConnector(String name, Map<String, String> config) {
        String body;
        try {
            body = JSON.writeValueAsString(config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        HttpResponse<String> response =
                send(
                        HttpRequest.newBuilder(rest.resolve("/connectors/" + name + "/config"))
                                .header("Content-Type", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString(body))
                                .build());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(
                    "PUT connector " + name + ": " + response.statusCode() + " " + response.body());
        }
    }

    /** Waits until the connector and its one task are RUNNING; fails on a FAILED task. */
    public void awaitRunning(String name) {
        await("connector " + name + " and its task RUNNING (log: " + log + ")")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .until(
                        () -> {
                            JsonNode status = get("/connectors/" + name + "/status");
                            if (status == null || status.path("tasks").isEmpty()) {
                                return false;
                            }
                            JsonNode task = status.path("tasks").get(0);
                            if ("FAILED".equals(task.path("state").asText())) {
                                throw new IllegalStateException(
                                        "task of " + name + " failed: " + task.path("trace"));
                            }
                            return "RUNNING".equals(status.path("connector").path("state").asText())
                                    && "RUNNING".equals(task.path("state").asText());
                        });
    }

    /** Deletes connector {@code name} (its task stops and leaves the replication slot). */
    public void deleteConnector(String name) {
        send(HttpRequest.newBuilder(rest.resolve("/connectors/" + name)).DELETE().build());
    }

    /** SIGKILL: the worker flushes no offsets and leaves the group without a word. */
    public void kill() throws InterruptedException {
        process.kill();
    }

    /** The topic holding the connectors' source offsets. */
    public static String offsetsTopic(String group) {
        return group + "-offsets";
    }

    private JsonNode get(String path) {
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(rest.resolve(path))
                                    .timeout(Duration.ofSeconds(10))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
        } catch (IOException e) {
            return null; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.stop();
        }
    }
}
