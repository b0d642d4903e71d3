package io.effonce.jdbc;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection that runs units of work as transactions. A transaction that fails because the
 * connection or the server went away is retried on a new connection with a doubling backoff, up to
 * the retry budget; any other error, and the last retry's, is thrown at once so the task fails and
 * Flink restores. Retrying is safe because every write is an absolute SET.
 */
public final class RetryingSession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RetryingSession.class);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    /** Work inside one transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Server-side bounds on every session, as roles.sql sets them for the sink's role: a task cut
     * from the database mid-transaction loses its transaction and locks once it was idle for the
     * settings' bound (20 s unless configured), a lock wait (a takeover behind such a task) gives
     * up after 60 s and is retried, and keepalives find a silent peer in about 30 s instead of
     * hours.
     */
    static String sessionOptions(Duration idleInTransactionTimeout) {
        return "-c idle_in_transaction_session_timeout="
                + idleInTransactionTimeout.toMillis()
                + "ms -c lock_timeout=60s"
                + " -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5"
                + " -c tcp_keepalives_count=4";
    }

    private final SessionSettings config;
    private Driver driver;
    private Connection connection;

    public RetryingSession(SessionSettings config) {
        this.config = config;
    }

    public <T> T inTransaction(String what, Work<T> work) {
        long backoff = config.retryBackoff().toMillis();
        for (int attempt = 0; ; attempt++) {
            try {
                Connection c = connection();
                try {
                    T result = work.run(c);
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                if (SqlErrors.isRefusedData(e)) {
                    throw new RefusedRowsException(what, e.getSQLState(), e.getMessage(), e);
                }
                if (!SqlErrors.isRetryable(e) || attempt >= config.maxRetries()) {
                    throw new TransactionFailedException(what, config, e, attempt);
                }
                LOG.warn(
                        "{} on {} failed (SQLSTATE {}: {}); reconnecting, retry {} of {} in {} ms",
                        what,
                        config,
                        e.getSQLState(),
                        e.getMessage(),
                        attempt + 1,
                        config.maxRetries(),
                        backoff);
                closeQuietly();
                sleep(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF.toMillis());
            }
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            Properties props = new Properties();
            props.setProperty("user", config.user());
            props.setProperty("password", config.resolvePassword());
            props.setProperty("ApplicationName", "effonce-sink");
            props.setProperty("connectTimeout", "10");
            props.setProperty("socketTimeout", "120");
            props.setProperty("tcpKeepAlive", "true");
            props.setProperty("options", sessionOptions(config.idleInTransactionTimeout()));
            // A batch of inserts (late_events, dead_letters) becomes multi-row INSERTs: a few
            // statements for PostgreSQL to parse and plan instead of one per row.
            props.setProperty("reWriteBatchedInserts", "true");
            connection = driver().connect(config.jdbcUrl(), props);
            connection.setAutoCommit(false);
        }
        return connection;
    }

    /**
     * The driver for the URL from this class's own class loader. In a Flink process that is the
     * job's user-code class loader: DriverManager would skip the driver another job's loader
     * registered and, at a job's first connection, fail with "No suitable driver" before it
     * registered this loader's own. A driver registered only in code comes from DriverManager.
     */
    private Driver driver() throws SQLException {
        if (driver == null) {
            ClassLoader loader = RetryingSession.class.getClassLoader();
            for (Driver candidate : ServiceLoader.load(Driver.class, loader)) {
                if (candidate.acceptsURL(config.jdbcUrl())) {
                    driver = candidate;
                    return driver;
                }
            }
            driver = DriverManager.getDriver(config.jdbcUrl());
        }
        return driver;
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // The connection is broken; closing it discards the transaction anyway.
        }
    }

    private void closeQuietly() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // Already broken.
            }
            connection = null;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting to retry", e);
        }
    }

    @Override
    public void close() {
        closeQuietly();
    }
}
