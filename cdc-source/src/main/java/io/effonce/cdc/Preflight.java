package io.effonce.cdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the ledger database before the engine starts, so that a relay that cannot work says why in
 * words an operator can act on, instead of a Debezium stack trace: connection and credentials,
 * {@code wal_level}, the REPLICATION attribute, the table and SELECT on it, the publication (or the
 * right to create it) and the slot (its plugin, its database, and whether another process holds
 * it).
 */
final class Preflight {

    private static final Logger LOG = LoggerFactory.getLogger(Preflight.class);

    /**
     * What the checks found that the engine configuration depends on.
     *
     * @param serverVersion the server's {@code server_version_num}, e.g. 170006
     */
    record Findings(boolean publicationExists, int serverVersion) {}

    private static final long SLOT_GRACE_NANOS = 5_000_000_000L;

    private Preflight() {}

    static Findings check(RelayOptions o) {
        Properties props = new Properties();
        props.setProperty("user", o.dbUser);
        props.setProperty("password", o.dbPassword);
        props.setProperty("connectTimeout", "10");
        props.setProperty("ApplicationName", "effonce-relay-preflight");
        try (Connection c = DriverManager.getConnection(o.connectUrl(), props)) {
            walLevel(c);
            replicationAttribute(c, o);
            table(c, o);
            boolean publicationExists = publication(c, o);
            int serverVersion = Integer.parseInt(single(c, "SHOW server_version_num"));
            slot(c, o, serverVersion);
            return new Findings(publicationExists, serverVersion);
        } catch (SQLException e) {
            throw new RelayStartupException(RelayErrors.explain(e, o), e);
        }
    }

    private static void walLevel(Connection c) throws SQLException {
        String level = single(c, "SHOW wal_level");
        if (!"logical".equals(level)) {
            throw new RelayStartupException(
                    "wal_level is '"
                            + level
                            + "' but logical decoding needs 'logical'. Fix: as a superuser run"
                            + " ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL (also"
                            + " check max_replication_slots >= 1 and max_wal_senders >= 1).");
        }
    }

    private static void replicationAttribute(Connection c, RelayOptions o) throws SQLException {
        String can =
                single(
                        c,
                        "SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user");
        if (!"t".equals(can)) {
            throw new RelayStartupException(
                    "role '"
                            + o.dbUser
                            + "' has no REPLICATION privilege, so it cannot create or stream the"
                            + " slot. Fix: as a superuser run ALTER ROLE "
                            + o.dbUser
                            + " REPLICATION; (deploy/sql/roles.sql does this for effonce_relay),"
                            + " or start the relay with --db-user effonce_relay.");
        }
    }

    private static void table(Connection c, RelayOptions o) throws SQLException {
        if (single(c, "SELECT to_regclass('public.payments')") == null) {
            throw new RelayStartupException(
                    "table public.payments does not exist in database '"
                            + c.getCatalog()
                            + "'. Fix: apply deploy/sql/ledger.sql (and roles.sql) to that"
                            + " database, or point --db-url at the ledger database.");
        }
        String select =
                single(c, "SELECT has_table_privilege(current_user, 'public.payments', 'SELECT')");
        if (!"t".equals(select)) {
            throw new RelayStartupException(
                    "role '"
                            + o.dbUser
                            + "' cannot SELECT from public.payments, which Debezium needs to read"
                            + " the table's schema (and rows, when snapshotting). Fix: GRANT SELECT ON"
                            + " payments TO "
                            + o.dbUser
                            + "; (deploy/sql/roles.sql).");
        }
    }

    /** Returns whether the publication exists; fails if it misses payments or cannot be created. */
    private static boolean publication(Connection c, RelayOptions o) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT p.puballtables, EXISTS (SELECT 1 FROM pg_publication_tables t"
                                + " WHERE t.pubname = p.pubname AND t.schemaname = 'public'"
                                + " AND t.tablename = 'payments')"
                                + " FROM pg_publication p WHERE p.pubname = ?")) {
            ps.setString(1, o.publication);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    if (!rs.getBoolean(2)) {
                        throw new RelayStartupException(
                                "publication '"
                                        + o.publication
                                        + "' exists but does not publish public.payments. Fix: as"
                                        + " the table's owner run ALTER PUBLICATION "
                                        + o.publication
                                        + " ADD TABLE public.payments; or choose another"
                                        + " --publication.");
                    }
                    return true;
                }
            }
        }
        String mayCreate =
                single(
                        c,
                        "SELECT pg_has_role(current_user, c.relowner, 'USAGE')"
                                + " AND has_database_privilege(current_database(), 'CREATE')"
                                + " FROM pg_class c WHERE c.oid = 'public.payments'::regclass");
        if (!"t".equals(mayCreate)) {
            throw new RelayStartupException(
                    "publication '"
                            + o.publication
                            + "' does not exist and role '"
                            + o.dbUser
                            + "' may not create it (only the owner of payments can). Fix: as the"
                            + " owner run CREATE PUBLICATION "
                            + o.publication
                            + " FOR TABLE public.payments; (deploy/sql/roles.sql creates"
                            + " effonce_payments), or pass the name of an existing one with"
                            + " --publication.");
        }
        return false;
    }

    private static void slot(Connection c, RelayOptions o, int serverVersion) throws SQLException {
        boolean failoverKnown = serverVersion >= SlotFailover.FIRST_VERSION;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT plugin, database, active, active_pid, slot_type, "
                                + (failoverKnown ? "failover" : "NULL")
                                + " FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, o.slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return; // Debezium creates it
                }
                String plugin = rs.getString(1);
                String database = rs.getString(2);
                if (!"logical".equals(rs.getString(5)) || !"pgoutput".equals(plugin)) {
                    throw new RelayStartupException(
                            "slot '"
                                    + o.slot
                                    + "' exists but uses plugin '"
                                    + plugin
                                    + "', not pgoutput. Fix: choose another --slot, or drop it"
                                    + " (SELECT pg_drop_replication_slot('"
                                    + o.slot
                                    + "')) if nothing else uses it.");
                }
                if (!c.getCatalog().equals(database)) {
                    throw new RelayStartupException(
                            "slot '"
                                    + o.slot
                                    + "' belongs to database '"
                                    + database
                                    + "', not '"
                                    + c.getCatalog()
                                    + "'. Fix: choose another --slot for this database.");
                }
                if (failoverKnown && o.slotFailover.appliesTo(serverVersion) && !rs.getBoolean(6)) {
                    LOG.warn(
                            "Slot '{}' was created without failover: a promoted standby will not"
                                    + " have it, and the relay will refuse to resume there. To keep"
                                    + " it across a failover, with the relay stopped run"
                                    + " ALTER_REPLICATION_SLOT {} (FAILOVER true) on a replication"
                                    + " connection (cdc-source/README.md, \"Ledger failover\").",
                            o.slot,
                            o.slot);
                }
                if (rs.getBoolean(3)) {
                    waitUntilInactive(ps, o, rs.getString(4));
                }
            }
        }
    }

    /**
     * A relay restarted right after a crash can find its slot still held by the dead relay's WAL
     * sender until PostgreSQL notices; give that a few seconds before calling the slot busy.
     */
    private static void waitUntilInactive(PreparedStatement ps, RelayOptions o, String pid)
            throws SQLException {
        long deadline = System.nanoTime() + SLOT_GRACE_NANOS;
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(250); // polling the server's view of the slot
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !rs.getBoolean(3)) {
                    return;
                }
                pid = rs.getString(4);
            }
        }
        throw slotActive(o, pid);
    }

    static RelayStartupException slotActive(RelayOptions o, String pid) {
        return new RelayStartupException(
                "replication slot '"
                        + o.slot
                        + "' is already active"
                        + (pid == null ? "" : " in server process " + pid)
                        + ": another relay (or client) is streaming from it. Fix: stop that relay"
                        + " first (only one may run per slot), or give this one its own --slot and"
                        + " --offsets-file.");
    }

    private static String single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
