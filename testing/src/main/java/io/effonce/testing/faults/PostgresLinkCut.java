package io.effonce.testing.faults;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP forwarder between clients and PostgreSQL that can cut the link in the middle of a
 * transaction, the way a network partition does: it reads the protocol just enough to see a
 * client's statement and the server's answer that the session is now <em>in a transaction</em>, and
 * at that moment every connection open through it stops passing bytes, both ways. PostgreSQL sees
 * sessions idle in transaction, holding their locks; the clients wait for an answer. Later {@link
 * #dropClients()} closes the clients' side only (the client learns of the cut, the server still
 * does not), and {@link #close()} both. Connections opened after the cut pass normally, and the cut
 * can be armed again for them.
 *
 * <p>Clients must connect with {@link #jdbcUrl(String)}: no SSL or GSS negotiation, and statements
 * sent with their text every time ({@code prepareThreshold=0}), so the statement is readable.
 */
public final class PostgresLinkCut implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresLinkCut.class);

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch cut = new CountDownLatch(1);
    private volatile Predicate<String> trigger;
    private volatile long lastFrozen;

    private PostgresLinkCut(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "pg-link-cut-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A forwarder to PostgreSQL at {@code host:port}. */
    public static PostgresLinkCut to(String host, int port) {
        try {
            return new PostgresLinkCut(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new IllegalStateException("Cannot listen for the PostgreSQL forwarder", e);
        }
    }

    /** {@code jdbcUrl} (a PostgreSQL URL) pointed at this forwarder, with the settings it needs. */
    public String jdbcUrl(String jdbcUrl) {
        String rest = jdbcUrl.substring(jdbcUrl.indexOf("//") + 2);
        String path = rest.substring(rest.indexOf('/'));
        String sep = path.contains("?") ? "&" : "?";
        return "jdbc:postgresql://127.0.0.1:"
                + listener.getLocalPort()
                + path
                + sep
                + "sslmode=disable&gssEncMode=disable&prepareThreshold=0";
    }

    /**
     * Arms the cut: the first time a statement whose text {@code statement} accepts leaves its
     * session in a transaction, every open connection stops passing bytes. Arming it again after a
     * cut waits for the next such statement.
     */
    public synchronized void cutAfter(Predicate<String> statement) {
        if (cut.getCount() == 0) {
            cut = new CountDownLatch(1);
        }
        this.trigger = statement;
    }

    /** Waits for the cut; returns whether it happened within {@code atMost}. */
    public boolean awaitCut(Duration atMost) throws InterruptedException {
        return cut.await(atMost.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** How many connections the last cut froze. */
    public long frozenLinks() {
        return lastFrozen;
    }

    /**
     * Closes the client side of every frozen connection: the clients see the connection reset, the
     * server's sessions stay open and silent.
     */
    public void dropClients() {
        for (Link link : links) {
            if (link.frozen) {
                closeQuietly(link.client);
            }
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        for (Link link : links) {
            closeQuietly(link.client);
            closeQuietly(link.server);
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 10_000);
                Link link = new Link(client, server);
                links.add(link);
                link.start();
            } catch (IOException e) {
                if (!listener.isClosed()) {
                    LOG.warn("Forwarder could not accept a connection: {}", e.toString());
                }
            }
        }
    }

    /** Cuts every open connection, once per {@link #cutAfter}. */
    private synchronized void cutIfArmed() {
        if (trigger == null) {
            return;
        }
        trigger = null;
        // The connections an earlier cut froze, or that ended, are dead: let them go.
        for (Link link : links) {
            if (link.frozen || link.ended) {
                links.remove(link);
                closeQuietly(link.client);
                closeQuietly(link.server);
            }
        }
        for (Link link : links) {
            link.frozen = true;
        }
        lastFrozen = links.size();
        LOG.info("Cut {} connections to PostgreSQL in the middle of a transaction", lastFrozen);
        cut.countDown();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already closed
        }
    }

    /** One client connection and its server connection, pumped one protocol message at a time. */
    private final class Link {
        final Socket client;
        final Socket server;
        volatile boolean frozen;
        volatile boolean suspect;
        volatile boolean ended;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void start() throws IOException {
            InputStream fromClient = client.getInputStream();
            OutputStream toServer = server.getOutputStream();
            InputStream fromServer = server.getInputStream();
            OutputStream toClient = client.getOutputStream();
            daemon("pg-link-up", () -> pump(fromClient, toServer, true));
            daemon("pg-link-down", () -> pump(fromServer, toClient, false));
        }

        private void daemon(String name, Runnable body) {
            Thread t = new Thread(body, name);
            t.setDaemon(true);
            t.start();
        }

        /**
         * Forwards whole messages. Upward, the first message is the untyped startup message; after
         * it every message is a type byte, a length and a body, in both directions.
         */
        private void pump(InputStream in, OutputStream out, boolean upward) {
            DataInputStream data = new DataInputStream(in);
            boolean startup = upward;
            try {
                while (true) {
                    int type = startup ? -1 : data.readUnsignedByte();
                    int length = data.readInt();
                    byte[] body = new byte[length - 4];
                    data.readFully(body);
                    startup = false;
                    if (upward && (type == 'Q' || type == 'P')) {
                        Predicate<String> armed = trigger;
                        suspect = armed != null && armed.test(statementText(type, body));
                    }
                    if (!upward && type == 'Z' && suspect && body[0] == 'T') {
                        cutIfArmed();
                    }
                    if (frozen) {
                        return; // the link is cut: nothing more passes
                    }
                    if (type >= 0) {
                        out.write(type);
                    }
                    out.write(
                            new byte[] {
                                (byte) (length >>> 24),
                                (byte) (length >>> 16),
                                (byte) (length >>> 8),
                                (byte) length
                            });
                    out.write(body);
                    out.flush();
                }
            } catch (EOFException e) {
                ended = true;
                closeQuietly(upward ? server : client);
            } catch (IOException e) {
                if (!frozen) {
                    ended = true;
                    closeQuietly(upward ? server : client);
                }
            }
        }
    }

    /** The SQL of a Query ('Q': text) or Parse ('P': name, then text) message. */
    private static String statementText(int type, byte[] body) {
        int start = 0;
        if (type == 'P') {
            while (start < body.length && body[start] != 0) {
                start++;
            }
            start++;
        }
        int end = start;
        while (end < body.length && body[end] != 0) {
            end++;
        }
        return new String(body, start, Math.max(0, end - start), StandardCharsets.UTF_8);
    }
}
