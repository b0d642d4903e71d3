package io.effonce.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server started from the binaries zonky ships in a Maven jar, on 127.0.0.1, with
 * logical decoding on ({@code wal_level = logical}) and room for replication slots. It can be
 * stopped and started again on the same data directory and port, as a database restart.
 */
public final class EmbeddedPostgres implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgres.class);
    private static final String SERVICE = "Embedded PostgreSQL";
    private static final String SUPERUSER_PASSWORD = "postgres";
    private static final String HBA_MARKER = "# effonce: every TCP login gives its password";

    private final Path dataDir;
    private final boolean temporary;
    private int port;
    private io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;
    private Optional<ProcessHandle> postmaster = Optional.empty();

    private EmbeddedPostgres(Path dataDir, boolean temporary, int port) {
        this.dataDir = dataDir;
        this.temporary = temporary;
        this.port = port;
    }

    /** Starts a server with its data in a new temporary directory, on a free port. */
    public static EmbeddedPostgres start() {
        return start(0);
    }

    /**
     * Starts a server with its data in a new temporary directory (deleted on close), on {@code
     * port} or a free one if 0.
     */
    public static EmbeddedPostgres start(int port) {
        try {
            return start(Files.createTempDirectory("effonce-pg-"), true, port);
        } catch (IOException e) {
            throw StartupFailure.explain(SERVICE, Path.of(System.getProperty("java.io.tmpdir")), e);
        }
    }

    /** Starts a server on {@code dataDir} (kept after stop), on {@code port} or a free one if 0. */
    public static EmbeddedPostgres start(Path dataDir, int port) {
        return start(dataDir, false, port);
    }

    private static EmbeddedPostgres start(Path dataDir, boolean temporary, int port) {
        EmbeddedPostgres postgres = new EmbeddedPostgres(dataDir, temporary, port);
        postgres.startServer();
        return postgres;
    }

    private void startServer() {
        StartupFailure.requirePortFree(SERVICE, port);
        try {
            var builder =
                    io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                            .setDataDirectory(dataDir)
                            .setCleanDataDirectory(
                                    false) // we delete temporary data ourselves, after a final stop
                            .setServerConfig("listen_addresses", "127.0.0.1")
                            .setServerConfig("wal_level", "logical")
                            .setServerConfig("max_replication_slots", "10")
                            .setServerConfig("max_wal_senders", "10")
                            .setServerConfig("max_connections", "200")
                            .setServerConfig("fsync", "off")
                            .setServerConfig("synchronous_commit", "on")
                            .setServerConfig("password_encryption", "scram-sha-256")
                            // The same exchange as a production server's, at a fraction of its
                            // work: the tests log in thousands of times, and 4,096 iterations
                            // cost both sides about 4 ms a login here.
                            .setServerConfig("scram_iterations", "16")
                            // zonky's readiness check logs in as postgres: with its password once
                            // logins need one
                            .setConnectConfig("password", SUPERUSER_PASSWORD);
            if (port > 0) {
                builder.setPort(port);
            }
            server = builder.start();
            port = server.getPort();
            postmaster = postmasterNow();
            requirePasswords();
            LOG.info("{} is up on 127.0.0.1:{} with data in {}", SERVICE, port, dataDir);
        } catch (IOException | RuntimeException e) {
            throw StartupFailure.explain(SERVICE, dataDir, e);
        }
    }

    /**
     * Makes every login over TCP give its password, checked with scram-sha-256 as a real server
     * does (initdb's {@code -A trust}, which zonky uses, lets any password in): a wrong password
     * fails here as it would in production. Done once per data directory; the superuser gets its
     * password first.
     */
    private void requirePasswords() {
        Path hba = dataDir.resolve("pg_hba.conf");
        try {
            if (Files.readString(hba).contains(HBA_MARKER)) {
                return;
            }
            try (Connection c = endpoint().connect();
                    Statement s = c.createStatement()) {
                s.execute("ALTER ROLE postgres PASSWORD '" + SUPERUSER_PASSWORD + "'");
                Files.writeString(
                        hba,
                        HBA_MARKER
                                + "\nlocal all all trust"
                                + "\nhost all all 127.0.0.1/32 scram-sha-256"
                                + "\nhost replication all 127.0.0.1/32 scram-sha-256\n");
                s.execute("SELECT pg_reload_conf()");
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException(
                    "Could not make " + SERVICE + " in " + dataDir + " require passwords", e);
        }
    }

    /** The superuser endpoint of the {@code postgres} database. */
    public PostgresEndpoint endpoint() {
        return new PostgresEndpoint(
                "jdbc:postgresql://127.0.0.1:" + port + "/postgres",
                "postgres",
                SUPERUSER_PASSWORD);
    }

    public int port() {
        return port;
    }

    /** Stops the server the way a crash would leave it reachable again: same port, same data. */
    public void restart() {
        stopServer();
        startServer();
    }

    /**
     * Kills the server the way a lost machine would: {@code SIGKILL} to the postmaster, whose
     * backends then exit without a checkpoint. Its data directory stays as the crash left it.
     */
    public void crash() {
        try {
            long pid = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0));
            ProcessHandle postmaster =
                    ProcessHandle.of(pid)
                            .orElseThrow(() -> new IllegalStateException("no postmaster " + pid));
            postmaster.destroyForcibly();
            postmaster.onExit().get(30, TimeUnit.SECONDS);
            LOG.info("{} on port {} killed (postmaster {})", SERVICE, port, pid);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read the postmaster's pid in " + dataDir, e);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("PostgreSQL on " + port + " did not die", e);
        }
        server = null; // nothing to stop any more
    }

    /** The server's data directory. */
    public Path dataDir() {
        return dataDir;
    }

    /** Stops the server; after this, connections are refused until {@link #restart()}. */
    public void stopServer() {
        if (server != null) {
            try {
                server.close();
            } catch (IOException | UncheckedIOException e) {
                // Ctrl-C reaches the server's process group too: a postmaster that already shut
                // down removed its pid file, and the stop has nothing left to do.
                if (Files.exists(dataDir.resolve("postmaster.pid"))) {
                    LOG.warn("{} on port {} did not stop cleanly", SERVICE, port, e);
                }
            }
            server = null;
        }
    }

    @Override
    public void close() {
        stopServer();
        // A postmaster that shuts down on its own (Ctrl-C) may still be removing files.
        postmaster.ifPresent(p -> p.onExit().orTimeout(60, TimeUnit.SECONDS).join());
        if (temporary) {
            Files2.deleteRecursively(dataDir);
        }
    }

    /** The postmaster its pid file names, read once the server is up. */
    private Optional<ProcessHandle> postmasterNow() {
        try {
            return ProcessHandle.of(
                    Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
