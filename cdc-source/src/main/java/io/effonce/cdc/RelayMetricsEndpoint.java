package io.effonce.cdc;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's metrics for Prometheus: {@code GET /metrics} on {@code --metrics-address} and {@code
 * --metrics-port}, in Prometheus's text format ({@link RelayMetricsText}). The slot's retained WAL
 * is read from the ledger at each scrape.
 */
final class RelayMetricsEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RelayMetricsEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;

    private RelayMetricsEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    static RelayMetricsEndpoint start(RelayOptions options, RelayMetrics metrics) {
        SlotLag slotLag = new SlotLag(options);
        HttpServer server;
        try {
            server =
                    HttpServer.create(
                            new InetSocketAddress(options.metricsAddress, options.metricsPort), 0);
        } catch (IOException e) {
            throw new RelayStartupException(
                    "cannot serve metrics on "
                            + options.metricsAddress
                            + ":"
                            + options.metricsPort
                            + " ("
                            + e.getMessage()
                            + "): choose another --metrics-port, or 0 for a free one",
                    e);
        }
        server.createContext(
                "/metrics",
                exchange -> {
                    try (exchange) {
                        OptionalLong retained = slotLag.retainedWalBytes();
                        byte[] body =
                                RelayMetricsText.render(
                                                metrics, options.slot, options.topic(), retained)
                                        .getBytes(StandardCharsets.UTF_8);
                        exchange.getResponseHeaders()
                                .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                        exchange.sendResponseHeaders(200, body.length);
                        try (OutputStream out = exchange.getResponseBody()) {
                            out.write(body);
                        }
                    }
                });
        ExecutorService executor =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "relay-metrics");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
        server.start();
        LOG.info(
                "Relay metrics for Prometheus at http://{}:{}/metrics",
                options.metricsAddress,
                server.getAddress().getPort());
        return new RelayMetricsEndpoint(server, executor);
    }

    /** The port it listens on (the one chosen, with {@code --metrics-port 0}). */
    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
