package io.effonce.feed.page;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open {@code GET /events} streams (Server-Sent Events): each new snapshot is sent to all of
 * them as one {@code snapshot} event. A stream whose write fails (the browser went away) is closed
 * and dropped; a comment line now and then finds those that went away quietly.
 */
final class SseBroadcaster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SseBroadcaster.class);

    private final List<Client> clients = new CopyOnWriteArrayList<>();
    private final AtomicLong eventId = new AtomicLong();

    /** Keeps {@code exchange} open as a stream and sends it {@code firstJson} at once. */
    void open(HttpExchange exchange, String firstJson) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(200, 0); // chunked, open until either side closes it
        Client client = new Client(exchange);
        // the browser reconnects after 2 s if the stream breaks
        if (client.send("retry: 2000\n" + event(firstJson))) {
            clients.add(client);
        }
    }

    /** Sends {@code json} to every open stream. */
    void broadcast(String json) {
        String event = event(json);
        for (Client c : clients) {
            if (!c.send(event)) {
                clients.remove(c);
            }
        }
    }

    /** A comment line: ignored by the browser, it fails on a stream nobody reads any more. */
    void keepAlive() {
        for (Client c : clients) {
            if (!c.send(": keep-alive\n\n")) {
                clients.remove(c);
            }
        }
    }

    int openStreams() {
        return clients.size();
    }

    private String event(String json) {
        // The page's JSON (PageJson) has no line breaks, so it fits on one data line.
        return "id: " + eventId.incrementAndGet() + "\nevent: snapshot\ndata: " + json + "\n\n";
    }

    @Override
    public void close() {
        for (Client c : clients) {
            c.close();
        }
        clients.clear();
    }

    private static final class Client {
        private final HttpExchange exchange;
        private final OutputStream out;

        Client(HttpExchange exchange) {
            this.exchange = exchange;
            this.out = exchange.getResponseBody();
        }

        synchronized boolean send(String text) {
            try {
                out.write(text.getBytes(StandardCharsets.UTF_8));
                out.flush();
                return true;
            } catch (IOException e) {
                LOG.debug(
                        "Event stream to {} closed: {}", exchange.getRemoteAddress(), e.toString());
                close();
                return false;
            }
        }

        synchronized void close() {
            exchange.close();
        }
    }
}
