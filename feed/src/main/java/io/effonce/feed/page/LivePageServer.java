package io.effonce.feed.page;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.effonce.credentials.DatabaseLogin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live page on the JDK's HTTP server: {@code GET /} the page, {@code GET /events} its
 * Server-Sent Events (a JSON snapshot at once, then one per commit notice and per change of the
 * live figures), {@code GET /snapshot.json} a snapshot read now. It only reads, as the role of its
 * {@link DatabaseLogin}.
 */
public final class LivePageServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LivePageServer.class);
    private static final String PAGE_RESOURCE = "live-page.html";

    /** Where the page's resource takes the first snapshot. */
    private static final String FIRST_SNAPSHOT = "FIRST_SNAPSHOT";

    private final HttpServer http;
    private final ExecutorService handlers;
    private final SnapshotSource source;
    private final SseBroadcaster broadcaster = new SseBroadcaster();
    private final RefreshLoop loop;
    private final byte[] page;

    private LivePageServer(PageSettings settings) throws IOException {
        this.page = loadPage();
        // bind first: a port in use fails before any connection is opened
        this.http =
                HttpServer.create(
                        new InetSocketAddress(settings.bindAddress(), settings.port()), 0);
        this.source =
                new SnapshotSource(
                        settings.login(),
                        new SnapshotQuery(settings.day(), settings.top()),
                        Clock.systemUTC());
        this.loop = new RefreshLoop(settings.login(), source, broadcaster, settings.liveInterval());
        this.handlers =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "live-page-http");
                            t.setDaemon(true);
                            return t;
                        });
        http.setExecutor(handlers);
        http.createContext("/", this::handle);
    }

    /**
     * Starts the page: binds the port (fails with a {@link java.net.BindException} if it is taken),
     * reads the first snapshot, and starts listening for commits.
     */
    public static LivePageServer start(PageSettings settings) throws IOException {
        LivePageServer server = new LivePageServer(settings);
        server.http.start();
        server.loop.start();
        LOG.info("Live page at {} reading as {}", server.uri(), settings.login());
        return server;
    }

    /** Where the page is, e.g. {@code http://127.0.0.1:8090/}. */
    public URI uri() {
        InetSocketAddress a = http.getAddress();
        String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getHostString();
        return URI.create("http://" + host + ":" + a.getPort() + "/");
    }

    /** Whether the page is listening for commit notices (false while it reconnects). */
    public boolean listening() {
        return loop.listening();
    }

    /** Browsers following the events now. */
    public int openStreams() {
        return broadcaster.openStreams();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET");
                respond(exchange, 405, "text/plain", "Only GET".getBytes(StandardCharsets.UTF_8));
                return;
            }
            switch (exchange.getRequestURI().getPath()) {
                case "/", "/index.html" -> respond(exchange, 200, "text/html", page());
                case "/events" -> broadcaster.open(exchange, loop.latest().toJson());
                case "/snapshot.json" ->
                        respond(
                                exchange,
                                200,
                                "application/json",
                                source.read("request", loop.commitNotices())
                                        .toJson()
                                        .getBytes(StandardCharsets.UTF_8));
                default ->
                        respond(
                                exchange,
                                404,
                                "text/plain",
                                "Not here: /, /events, /snapshot.json"
                                        .getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Request {} failed: {}", exchange.getRequestURI(), e.toString());
            exchange.close();
        }
    }

    /**
     * The page with the latest snapshot in it, so it shows figures before its event stream is open.
     * In JSON a {@code <} occurs only inside strings, where its backslash-u escape means the same:
     * no merchant id can end the script element.
     */
    private byte[] page() {
        String json = loop.latest().toJson().replace("<", "\\u003c");
        return new String(page, StandardCharsets.UTF_8)
                .replace(FIRST_SNAPSHOT, json)
                .getBytes(StandardCharsets.UTF_8);
    }

    private static void respond(HttpExchange exchange, int status, String type, byte[] body)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, body.length);
        try (var out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static byte[] loadPage() {
        try (InputStream in = LivePageServer.class.getResourceAsStream(PAGE_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("The page's resource is missing: " + PAGE_RESOURCE);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        loop.close();
        broadcaster.close();
        http.stop(0);
        handlers.shutdownNow();
        source.close();
    }
}
