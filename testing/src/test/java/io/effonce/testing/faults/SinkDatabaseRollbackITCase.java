package io.effonce.testing.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Putting the sink's tables back while a sink transaction holds a lock on one of them: the two wait
 * for each other, and the sink's side is the one PostgreSQL cancels.
 */
@ExtendWith(PostgresExtension.class)
class SinkDatabaseRollbackITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void aSinkTransactionLockingInAnotherOrderIsCancelledAndTheRollbackCompletes(
            PostgresEndpoint db) throws Exception {
        SinkDatabaseRollback copy = SinkDatabaseRollback.copy(db);
        try (Connection sink = db.connect();
                Statement s = sink.createStatement()) {
            s.execute("SET application_name = 'effonce-sink'");
            sink.setAutoCommit(false);
            // The last table TRUNCATE takes: the rollback locks the others, then waits here.
            s.execute("LOCK TABLE dead_letters IN ROW EXCLUSIVE MODE");

            CompletableFuture<Void> restore = CompletableFuture.runAsync(copy::restore);
            await("the rollback waiting for the sink's lock on dead_letters")
                    .atMost(TIMEOUT)
                    .until(() -> waitingForALock(db) || restore.isDone());
            assertThat(restore).as("the rollback waits for the sink's lock").isNotDone();

            // The sink now wants a table the rollback holds: each waits for the other.
            assertThatThrownBy(
                            () ->
                                    s.execute(
                                            "LOCK TABLE merchant_daily_totals"
                                                    + " IN ROW EXCLUSIVE MODE"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(
                            e ->
                                    assertThat(((SQLException) e).getSQLState())
                                            .as("the sink's side cancelled as a deadlock")
                                            .isEqualTo("40P01"));
            sink.rollback();
            restore.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            copy.discard();
        }
    }

    private static boolean waitingForALock(PostgresEndpoint db) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT count(*) FROM pg_locks l"
                                        + " JOIN pg_class r ON r.oid = l.relation"
                                        + " WHERE NOT l.granted AND r.relname = 'dead_letters'")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }
}
