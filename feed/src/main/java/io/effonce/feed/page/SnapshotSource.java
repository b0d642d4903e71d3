package io.effonce.feed.page;

import io.effonce.credentials.DatabaseLogin;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Reads snapshots on one connection of its own, opened on first use and opened again after a
 * failure. Used by the refresh loop and by {@code GET /snapshot.json}, one at a time.
 */
final class SnapshotSource implements AutoCloseable {

    private final DatabaseLogin login;
    private final SnapshotQuery query;
    private final RestoreLog restores = new RestoreLog();
    private final Clock clock;
    private Connection connection;
    private PageSnapshot last;

    SnapshotSource(DatabaseLogin login, SnapshotQuery query, Clock clock) {
        this.login = login;
        this.query = query;
        this.clock = clock;
    }

    /**
     * Reads the figures now. If the database cannot be read, returns the last figures with the
     * reason in {@link PageSnapshot#error()}, so the page keeps showing them and says why they
     * stand still.
     */
    synchronized PageSnapshot read(String trigger, long commitNotices) {
        Instant now = clock.instant();
        try {
            SnapshotQuery.Figures f = readInOneTransaction();
            last =
                    new PageSnapshot(
                            f.day(),
                            f.rows(),
                            f.asOf(),
                            f.liveWrittenAt(),
                            restores.note(f.asOf(), now),
                            now,
                            trigger,
                            commitNotices,
                            null);
        } catch (SQLException e) {
            closeConnection();
            String error = "cannot read the totals: " + e.getMessage();
            last =
                    last == null
                            ? new PageSnapshot(
                                    null,
                                    List.of(),
                                    null,
                                    null,
                                    List.of(),
                                    now,
                                    trigger,
                                    commitNotices,
                                    error)
                            : new PageSnapshot(
                                    last.day(),
                                    last.rows(),
                                    last.asOf(),
                                    last.liveWrittenAt(),
                                    last.restores(),
                                    last.readAt(),
                                    trigger,
                                    commitNotices,
                                    error);
        }
        return last;
    }

    private SnapshotQuery.Figures readInOneTransaction() throws SQLException {
        if (connection == null) {
            connection = login.connect("live page (reads)");
            connection.setAutoCommit(false);
            connection.setReadOnly(true);
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        }
        try {
            SnapshotQuery.Figures figures = query.read(connection);
            connection.commit();
            return figures;
        } catch (SQLException e) {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // the connection is closed below anyway
            }
            throw e;
        }
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it is being dropped
            }
            connection = null;
        }
    }

    @Override
    public synchronized void close() {
        closeConnection();
    }
}
