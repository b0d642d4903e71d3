package io.effonce.it.testutils;

import static org.awaitility.Awaitility.await;

import io.effonce.job.DailyTotal;
import io.effonce.job.MerchantDayKey;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import io.effonce.sink.testutils.DelegatingStore;
import io.effonce.testing.PostgresEndpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * The sink's takeovers held at the nemesis' word: while {@value #HOLD} has a row, a sink subtask
 * that starts records its process and task in {@value #HOLDERS} and waits before it takes its key
 * groups over. The soak freezes a TaskManager found there, so that an attempt of it wakes just
 * before its takeover after the job restored elsewhere and moved on: the start the fence's
 * staleness rule refuses. Without a hold the store is the one it wraps.
 */
public final class TakeoverHolds {

    private static final String HOLD = "soak_takeover_hold";
    private static final String HOLDERS = "soak_takeover_holders";

    /** How often a held takeover asks whether it may go on. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final SinkTables tables;

    /** Creates the two tables in the sink's database {@code db}, with no hold. */
    public TakeoverHolds(PostgresEndpoint db) {
        this.tables = new SinkTables(db);
        tables.execute("CREATE TABLE IF NOT EXISTS " + HOLD + " (since timestamptz DEFAULT now())");
        tables.execute(
                "CREATE TABLE IF NOT EXISTS "
                        + HOLDERS
                        + " (pid bigint NOT NULL, task text NOT NULL,"
                        + " since timestamptz DEFAULT now())");
        release();
    }

    /** Holds every takeover from now on; forgets earlier holders. */
    public void hold() {
        tables.execute("DELETE FROM " + HOLDERS);
        tables.execute("INSERT INTO " + HOLD + " DEFAULT VALUES");
    }

    /** A takeover held now: the first to have waited, by the TaskManager's process id. */
    public Holder awaitHolder(Duration timeout) {
        Holder[] first = {null};
        await("a sink subtask waiting to take its key groups over")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> {
                            tables.query(
                                    "SELECT pid, task FROM " + HOLDERS + " ORDER BY since LIMIT 1",
                                    rs -> first[0] = new Holder(rs.getLong(1), rs.getString(2)));
                            return first[0] != null;
                        });
        return first[0];
    }

    /** Lets every held takeover, and every later one, go on. */
    public void release() {
        tables.execute("DELETE FROM " + HOLD);
    }

    /** A held takeover: the TaskManager's process and the sink subtask's attempt. */
    public record Holder(long pid, String task) {}

    /** The store side: waits before a takeover while held. */
    static final class Held extends DelegatingStore<MerchantDayKey, DailyTotal> {

        private final PostgresStoreConfig config;

        Held(PostgresStoreConfig config, SinkStore<MerchantDayKey, DailyTotal> store) {
            super(store);
            this.config = config;
        }

        @Override
        public Takeover takeOwnership(
                KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
            awaitRelease(claim.task());
            return store.takeOwnership(span, claim, terms);
        }

        /**
         * Waits while held. An interrupt (the TaskManager cancelling the task) does not end the
         * wait, as it would not end a JDBC call in progress; it is kept for what follows.
         */
        private void awaitRelease(String task) {
            Properties login = new Properties();
            login.setProperty("user", config.user());
            login.setProperty("password", config.session().resolvePassword());
            try (Connection c = new org.postgresql.Driver().connect(config.jdbcUrl(), login)) {
                if (!held(c)) {
                    return;
                }
                try (PreparedStatement s =
                        c.prepareStatement(
                                "INSERT INTO " + HOLDERS + " (pid, task) VALUES (?, ?)")) {
                    s.setLong(1, ProcessHandle.current().pid());
                    s.setString(2, task);
                    s.executeUpdate();
                }
                boolean interrupted = false;
                while (held(c)) {
                    interrupted |= Thread.interrupted();
                    LockSupport.parkNanos(POLL_NANOS);
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            } catch (SQLException e) {
                throw new IllegalStateException("Could not read the soak's takeover hold", e);
            }
        }

        private static boolean held(Connection c) throws SQLException {
            try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL");
                    ResultSet rs = exec(s, HOLD)) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return false; // no such table outside the soak: nothing is ever held there
                }
            }
            try (PreparedStatement s =
                            c.prepareStatement("SELECT EXISTS (SELECT 1 FROM " + HOLD + ")");
                    ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }

        private static ResultSet exec(PreparedStatement s, String table) throws SQLException {
            s.setString(1, table);
            return s.executeQuery();
        }
    }
}
