package io.effonce.it.testutils;

import static org.awaitility.Awaitility.await;

import io.effonce.job.JobOptions;
import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Holds back the sink's acknowledgement of a savepoint for the key groups from {@code
 * firstHeldKeyGroup} on, inside the database: a row trigger on {@code sink_progress} makes the
 * acknowledging transaction wait for an advisory lock this gate holds. The sink subtask that owns
 * those key groups then sits in its savepoint-complete notification, so a stop-with-savepoint whose
 * savepoint completed cannot finish: the moment a test fails the stop at, reached by an event
 * instead of a race with the task.
 */
public final class SavepointAcknowledgementGate implements AutoCloseable {

    private static final long LOCK = 4242;

    private final PostgresEndpoint db;
    private final int firstHeldKeyGroup;
    private final Connection holder;

    /** A gate for the key groups of the second of the job's two sink subtasks. */
    public static SavepointAcknowledgementGate atSecondOfTwoSinkSubtasks(PostgresEndpoint db)
            throws SQLException {
        return new SavepointAcknowledgementGate(
                db,
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                                JobOptions.MAX_PARALLELISM.defaultValue(), 2, 1)
                        .getStartKeyGroup());
    }

    public SavepointAcknowledgementGate(PostgresEndpoint db, int firstHeldKeyGroup)
            throws SQLException {
        this.db = db;
        this.firstHeldKeyGroup = firstHeldKeyGroup;
        run(
                "CREATE OR REPLACE FUNCTION effonce_test_hold_savepoint_ack() RETURNS trigger"
                        + " LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF NEW.acknowledged_savepoint IS DISTINCT FROM OLD.acknowledged_savepoint"
                        + " AND NEW.key_group >= "
                        + firstHeldKeyGroup
                        + " THEN PERFORM pg_advisory_xact_lock("
                        + LOCK
                        + "); END IF; RETURN NEW; END $$");
        run(
                "CREATE TRIGGER effonce_test_hold_savepoint_ack BEFORE UPDATE ON sink_progress"
                        + " FOR EACH ROW EXECUTE FUNCTION effonce_test_hold_savepoint_ack()");
        holder = db.connect();
        try (Statement s = holder.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + LOCK + ")");
        }
    }

    /** The newest savepoint the key groups before the held ones acknowledged ({@code 0}: none). */
    public long acknowledgedBeforeTheHeld() {
        return new SinkTables(db).acknowledgedSavepoint(0, firstHeldKeyGroup - 1);
    }

    /** The newest savepoint the held key groups acknowledged ({@code 0}: none). */
    public long acknowledgedByTheHeld() {
        return new SinkTables(db).acknowledgedSavepoint(firstHeldKeyGroup, Integer.MAX_VALUE);
    }

    /** Waits until a sink transaction acknowledging the savepoint waits at the gate. */
    public void awaitHeldBack(Duration atMost) {
        await("a sink transaction acknowledging a savepoint held back at the gate")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () ->
                                new SinkTables(db)
                                                .number(
                                                        "SELECT count(*) FROM pg_locks WHERE"
                                                                + " locktype = 'advisory' AND NOT"
                                                                + " granted AND objid = "
                                                                + LOCK)
                                        > 0);
    }

    /**
     * Lets the held transaction go on (its client is gone by then: it fails and rolls back) and
     * removes the trigger.
     */
    @Override
    public void close() throws SQLException {
        try (Statement s = holder.createStatement()) {
            s.execute("SELECT pg_advisory_unlock(" + LOCK + ")");
        } finally {
            holder.close();
        }
        run("DROP TRIGGER IF EXISTS effonce_test_hold_savepoint_ack ON sink_progress");
        run("DROP FUNCTION IF EXISTS effonce_test_hold_savepoint_ack()");
    }

    private void run(String sql) throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
