package io.effonce.feed.page;

import io.effonce.credentials.DatabaseLogin;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when the page reads again, on a thread of its own with a dedicated connection that
 * LISTENs on {@code effonce_committed}:
 *
 * <ul>
 *   <li>a notification (the sink sends one in every transaction that commits a checkpoint's totals,
 *       delivered when it commits) → read and push at once: the committed column is as fresh as the
 *       commit;
 *   <li>every {@code liveInterval} → read and push if anything changed: live rows are written many
 *       times a second with no notification (a NOTIFY per write would flood the channel), so the
 *       live column is polled.
 * </ul>
 *
 * A broken LISTEN connection is opened again after a pause that grows to {@link #MAX_BACKOFF}; the
 * live interval goes on meanwhile, so the page still refreshes, and says so if reads fail too.
 */
final class RefreshLoop implements AutoCloseable {

    static final String CHANNEL = "effonce_committed";

    private static final Logger LOG = LoggerFactory.getLogger(RefreshLoop.class);

    /** The longest a wait for notifications blocks, so {@link #close()} is never kept waiting. */
    private static final int MAX_WAIT_MILLIS = 250;

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private final DatabaseLogin login;
    private final SnapshotSource source;
    private final SseBroadcaster broadcaster;
    private final Duration liveInterval;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile PageSnapshot latest;
    private volatile long commitNotices;
    private volatile boolean listening;

    RefreshLoop(
            DatabaseLogin login,
            SnapshotSource source,
            SseBroadcaster broadcaster,
            Duration liveInterval) {
        this.login = login;
        this.source = source;
        this.broadcaster = broadcaster;
        this.liveInterval = liveInterval;
        this.latest = source.read("start", 0);
        this.thread = new Thread(this::run, "live-page-refresh");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** The snapshot the page shows now. */
    PageSnapshot latest() {
        return latest;
    }

    long commitNotices() {
        return commitNotices;
    }

    /** Whether the LISTEN connection is up: from then on every commit is announced to the page. */
    boolean listening() {
        return listening;
    }

    private void run() {
        Connection listening = null;
        long nextRead = System.nanoTime() + liveInterval.toNanos();
        long nextKeepAlive = System.nanoTime() + KEEP_ALIVE.toNanos();
        long nextListenAttempt = System.nanoTime();
        Duration backoff = FIRST_BACKOFF;
        while (running) {
            try {
                if (listening == null && System.nanoTime() >= nextListenAttempt) {
                    listening = listen();
                    this.listening = true;
                    backoff = FIRST_BACKOFF;
                    // commits while the connection was down were not announced: read once now
                    publish("listening", false);
                }
                int wait = (int) Math.min(MAX_WAIT_MILLIS, millisUntil(nextRead));
                if (listening == null) {
                    waitQuietly(wait);
                } else {
                    PGNotification[] notes =
                            listening
                                    .unwrap(PGConnection.class)
                                    .getNotifications(Math.max(1, wait));
                    if (notes != null && notes.length > 0) {
                        commitNotices += notes.length;
                        LOG.debug(
                                "{} commit notice(s), last: {}",
                                notes.length,
                                notes[notes.length - 1].getParameter());
                        publish("commit", true);
                        nextRead = System.nanoTime() + liveInterval.toNanos();
                    }
                }
            } catch (SQLException e) {
                LOG.warn(
                        "LISTEN {} as {} failed ({}); again in {} ms, polling meanwhile",
                        CHANNEL,
                        login.user(),
                        e.getMessage(),
                        backoff.toMillis());
                closeQuietly(listening);
                listening = null;
                this.listening = false;
                nextListenAttempt = System.nanoTime() + backoff.toNanos();
                backoff =
                        backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                                ? MAX_BACKOFF
                                : backoff.multipliedBy(2);
            }
            if (System.nanoTime() >= nextRead) {
                publish("interval", false);
                nextRead = System.nanoTime() + liveInterval.toNanos();
            }
            if (System.nanoTime() >= nextKeepAlive) {
                broadcaster.keepAlive();
                nextKeepAlive = System.nanoTime() + KEEP_ALIVE.toNanos();
            }
        }
        closeQuietly(listening);
    }

    private Connection listen() throws SQLException {
        Connection c = login.connect("live page (listen)");
        try (Statement s = c.createStatement()) {
            s.execute("LISTEN " + CHANNEL); // a constant: LISTEN takes no bound parameter
        } catch (SQLException e) {
            closeQuietly(c);
            throw e;
        }
        LOG.info("Listening on {} as {}", CHANNEL, login.user());
        return c;
    }

    /** Reads; pushes if the figures changed, or always for a commit notice (its count moves). */
    private void publish(String trigger, boolean always) {
        PageSnapshot previous = latest;
        PageSnapshot next = source.read(trigger, commitNotices);
        latest = next;
        if (always || !next.sameFiguresAs(previous)) {
            broadcaster.broadcast(next.toJson());
        }
    }

    private static long millisUntil(long nanoTime) {
        return Math.max(0, (nanoTime - System.nanoTime()) / 1_000_000);
    }

    private void waitQuietly(long millis) {
        synchronized (this) {
            try {
                if (running && millis > 0) {
                    wait(millis); // woken early only by close()
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // dropped either way
            }
        }
    }

    @Override
    public void close() {
        running = false;
        synchronized (this) {
            notifyAll();
        }
        try {
            thread.join(Duration.ofSeconds(5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
