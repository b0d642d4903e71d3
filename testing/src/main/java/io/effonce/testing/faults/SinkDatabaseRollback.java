package io.effonce.testing.faults;

import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sink's database going back in time, as a promoted asynchronous standby or a backup restored
 * in its place makes it: {@link #copy} keeps a consistent copy of every table and sequence the
 * job's sink writes, taken in one snapshot; {@link #restore} puts that copy back in one transaction
 * and, as a failover does, ends the sink's sessions. Everything acknowledged in between is gone,
 * the fence, the writers' counts and the tokens handed out included. Each copy is a schema of its
 * own, so several can be kept and any put back; {@link #discard} drops one.
 */
public final class SinkDatabaseRollback {

    /** What the sink writes; {@code merchant_daily_totals} and its two companions first. */
    public static final List<String> TABLES =
            List.of(
                    "merchant_daily_totals",
                    "merchant_daily_totals_staged",
                    "merchant_daily_totals_committed",
                    "sink_fences",
                    "sink_writers",
                    "sink_progress",
                    "sink_superseded_runs",
                    "sink_repairs",
                    "sink_live_deletes",
                    "sink_savepoint_barriers",
                    "sink_restart_gaps",
                    "late_events",
                    "dead_letters");

    public static final List<String> SEQUENCES = List.of("sink_fence_token", "sink_deployment");

    private static final AtomicLong COPIES = new AtomicLong();

    private final PostgresEndpoint db;
    private final String schema;
    private final Map<String, long[]> sequences;

    private SinkDatabaseRollback(
            PostgresEndpoint db, String schema, Map<String, long[]> sequences) {
        this.db = db;
        this.schema = schema;
        this.sequences = sequences;
    }

    /** Copies the sink's tables and sequences as they are now, in one snapshot. */
    public static SinkDatabaseRollback copy(PostgresEndpoint db) {
        Map<String, long[]> sequences = new LinkedHashMap<>();
        String schema =
                "rollback_copy_" + ProcessHandle.current().pid() + "_" + COPIES.incrementAndGet();
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + schema);
                for (String table : TABLES) {
                    s.execute(
                            "CREATE TABLE " + schema + "." + table + " AS SELECT * FROM " + table);
                }
                for (String sequence : SEQUENCES) {
                    try (ResultSet rs =
                            s.executeQuery(
                                    "SELECT last_value, CASE WHEN is_called THEN 1 ELSE 0 END FROM "
                                            + sequence)) {
                        rs.next();
                        sequences.put(sequence, new long[] {rs.getLong(1), rs.getLong(2)});
                    }
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot copy the sink's tables", e);
        }
        return new SinkDatabaseRollback(db, schema, sequences);
    }

    /**
     * Puts the copy back in one transaction (tables and sequences), then ends every session of the
     * sink ({@code application_name} effonce-sink), as a failover to a standby that lags does.
     *
     * <p>The sink keeps writing meanwhile, and its transactions lock these tables in another order
     * than {@code TRUNCATE} does: the two can wait for each other. PostgreSQL breaks such a cycle
     * in the session whose {@code deadlock_timeout} ends first, so this one waits far longer than
     * the sink's sessions: the sink's transaction is the one cancelled (a deadlock it retries),
     * never the rollback.
     */
    public void restore() {
        restore(TABLES, true);
    }

    /**
     * Puts back only {@code tables} of the copy, and none of its sequences, then ends the sink's
     * sessions: an operator's partial restore, the other tables left as they are.
     */
    public void restoreOnly(List<String> tables) {
        if (!TABLES.containsAll(tables)) {
            throw new IllegalArgumentException("Not a table of the copy: " + tables);
        }
        restore(tables, false);
    }

    private void restore(List<String> tables, boolean withSequences) {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL deadlock_timeout = '10min'");
                s.execute("TRUNCATE " + String.join(", ", tables));
                for (String table : tables) {
                    s.execute("INSERT INTO " + table + " SELECT * FROM " + schema + "." + table);
                }
                for (Map.Entry<String, long[]> sequence :
                        withSequences
                                ? sequences.entrySet()
                                : Map.<String, long[]>of().entrySet()) {
                    s.execute(
                            "SELECT setval('"
                                    + sequence.getKey()
                                    + "', "
                                    + sequence.getValue()[0]
                                    + ", "
                                    + (sequence.getValue()[1] == 1)
                                    + ")");
                }
            }
            c.commit();
            try (Statement s = c.createStatement()) {
                s.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                + " WHERE application_name = 'effonce-sink'"
                                + " AND pid <> pg_backend_pid()");
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot put the sink's tables back", e);
        }
    }

    /** The schema that holds the copy's tables, for a test that compares them. */
    public String schema() {
        return schema;
    }

    /** Drops the copy. */
    public void discard() {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot drop the copy of the sink's tables", e);
        }
    }
}
