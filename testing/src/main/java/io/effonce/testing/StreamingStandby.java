package io.effonce.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A physical streaming standby of an {@link EmbeddedPostgres}, made from a cold copy of its data
 * directory ({@code standby.signal}, {@code primary_conninfo}, a physical slot on the primary), as
 * a managed PostgreSQL keeps one for failover. With failover slots (PostgreSQL 17) the primary
 * keeps a logical slot created with {@code failover = true} from getting ahead of the standby
 * ({@code synchronized_standby_slots}), and the standby copies such slots ({@code
 * sync_replication_slots}, {@code hot_standby_feedback}), so that a logical slot survives a
 * promotion.
 */
public final class StreamingStandby implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamingStandby.class);

    /** The primary's physical slot for the standby. */
    public static final String PHYSICAL_SLOT = "effonce_standby";

    /** What a running server keeps in its data directory that a copy must not take. */
    private static final Set<String> NOT_COPIED = Set.of("postmaster.pid", "postmaster.opts");

    private final EmbeddedPostgres server;
    private final Path dataDir;
    private final PostgresEndpoint primary;

    private StreamingStandby(EmbeddedPostgres server, Path dataDir, PostgresEndpoint primary) {
        this.server = server;
        this.dataDir = dataDir;
        this.primary = primary;
    }

    /**
     * Stops {@code primary}, copies its data directory, starts it again on the same port and starts
     * the copy as its standby; with {@code failoverSlots}, both are set up for failover slots.
     */
    public static StreamingStandby of(EmbeddedPostgres primary, boolean failoverSlots) {
        return of(primary, failoverSlots, 0);
    }

    /** As {@link #of(EmbeddedPostgres, boolean)}, the standby on {@code port} (0: a free one). */
    public static StreamingStandby of(EmbeddedPostgres primary, boolean failoverSlots, int port) {
        PostgresEndpoint p = primary.endpoint();
        execute(p, "SELECT pg_create_physical_replication_slot('" + PHYSICAL_SLOT + "', true)");
        if (failoverSlots) {
            execute(p, "ALTER SYSTEM SET synchronized_standby_slots = '" + PHYSICAL_SLOT + "'");
        }
        primary.stopServer();
        Path copy;
        try {
            copy = Files.createTempDirectory("effonce-pg-standby-");
            copyDirectory(primary.dataDir(), copy);
            Path auto = copy.resolve("postgresql.auto.conf");
            // Promoted, the standby must not wait for a standby of its own.
            List<String> settings =
                    Files.readAllLines(auto).stream()
                            .filter(line -> !line.startsWith("synchronized_standby_slots"))
                            .filter(line -> !line.startsWith("primary_conninfo"))
                            .filter(line -> !line.startsWith("primary_slot_name"))
                            .toList();
            Files.write(auto, settings);
            Files.writeString(
                    auto,
                    "primary_conninfo = 'host=127.0.0.1 port="
                            + primary.port()
                            + " user=postgres password=postgres dbname=postgres"
                            + " application_name="
                            + PHYSICAL_SLOT
                            + "'\nprimary_slot_name = '"
                            + PHYSICAL_SLOT
                            + "'\nhot_standby_feedback = on\n"
                            + (failoverSlots ? "sync_replication_slots = on\n" : ""),
                    StandardOpenOption.APPEND);
            Files.createFile(copy.resolve("standby.signal"));
        } catch (IOException e) {
            primary.restart();
            throw new UncheckedIOException("Cannot make the standby's data directory", e);
        }
        primary.restart();
        EmbeddedPostgres standby = EmbeddedPostgres.start(copy, port);
        LOG.info(
                "Standby of 127.0.0.1:{} streaming on 127.0.0.1:{} (failover slots {})",
                primary.port(),
                standby.port(),
                failoverSlots ? "on" : "off");
        return new StreamingStandby(standby, copy, p);
    }

    /**
     * The {@code postgres} database of {@code primary} and this standby in one multi-host URL, the
     * primary first: pgjdbc connects to whichever is primary ({@code targetServerType=primary}).
     */
    public PostgresEndpoint withPrimary(EmbeddedPostgres primary) {
        return new PostgresEndpoint(
                "jdbc:postgresql://127.0.0.1:"
                        + primary.port()
                        + ",127.0.0.1:"
                        + server.port()
                        + "/postgres?targetServerType=primary",
                "postgres",
                "postgres");
    }

    public EmbeddedPostgres server() {
        return server;
    }

    /**
     * Whether the standby holds {@code slot}, synchronized from the primary and ready to use. Asked
     * while the primary runs, it first logs a standby snapshot there: the standby can only sync a
     * new slot once the slot's catalog xmin moved past its own, which happens at such a record, and
     * the primary writes one by itself only every 15 s (meanwhile the standby's sync worker backs
     * off to 30 s between tries).
     */
    public boolean hasSyncedSlot(String slot) {
        try {
            execute(primary, "SELECT pg_log_standby_snapshot()");
        } catch (RuntimeException primaryGone) {
            // Killed or promoted away: the slot is synced or it is not; nothing more to move.
        }
        return query(
                "SELECT synced AND NOT temporary AND invalidation_reason IS NULL"
                        + " FROM pg_replication_slots WHERE slot_name = '"
                        + slot
                        + "'");
    }

    /** Whether the standby has replayed everything {@code primary} has written so far. */
    public boolean caughtUpWith(PostgresEndpoint primary) {
        String lsn = text(primary, "SELECT pg_current_wal_lsn()::text");
        return query("SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn");
    }

    /**
     * Cuts the standby off its primary, as a network that stops carrying its stream would: from now
     * on the primary's commits do not reach it, and a promotion loses them. Its WAL receiver stops
     * and does not start again (an empty {@code primary_conninfo}); returns once it is gone.
     */
    public void detach() {
        try {
            Files.writeString(
                    dataDir.resolve("postgresql.auto.conf"),
                    "primary_conninfo = ''\n",
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot rewrite the standby's primary_conninfo", e);
        }
        execute(server.endpoint(), "SELECT pg_reload_conf()");
        Awaitility.await("the standby's WAL receiver to stop after primary_conninfo was emptied")
                .atMost(Duration.ofMinutes(1))
                .until(() -> query("SELECT count(*) = 0 FROM pg_stat_wal_receiver"));
        LOG.info("Standby on 127.0.0.1:{} cut off its primary", server.port());
    }

    /** Promotes the standby to a primary and waits until it accepts writes. */
    public void promote() {
        execute(server.endpoint(), "SELECT pg_promote(true, 60)");
        LOG.info("Standby on 127.0.0.1:{} promoted", server.port());
    }

    @Override
    public void close() {
        server.close();
        Files2.deleteRecursively(dataDir);
    }

    private boolean query(String sql) {
        return "t".equals(text(server.endpoint(), sql));
    }

    private static String text(PostgresEndpoint db, String sql) {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static void execute(PostgresEndpoint db, String sql) {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static void copyDirectory(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                if (NOT_COPIED.contains(source.getFileName().toString())
                        || from.relativize(source).startsWith("pg_replslot")
                                && !from.relativize(source).toString().equals("pg_replslot")) {
                    continue; // the primary's slots are its own
                }
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
    }
}
