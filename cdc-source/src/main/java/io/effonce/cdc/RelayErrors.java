package io.effonce.cdc;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns database, Kafka and engine failures into a sentence that says what to do. */
final class RelayErrors {

    private static final Pattern SLOT_ACTIVE =
            Pattern.compile("replication slot \"[^\"]+\" is active for PID (\\d+)");

    private RelayErrors() {}

    static String explain(Throwable error, RelayOptions o) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RelayStartupException) {
                return t.getMessage();
            }
            String m = String.valueOf(t.getMessage());
            Matcher active = SLOT_ACTIVE.matcher(m);
            if (active.find()) {
                return Preflight.slotActive(o, active.group(1)).getMessage();
            }
            if (m.contains("but this is no longer available on the server")) {
                return slotLost(o, m);
            }
            if (m.contains("password authentication failed") || m.contains("no password")) {
                return "PostgreSQL refused the login of role '"
                        + o.dbUser
                        + "' ("
                        + m
                        + "). Fix: set the password in EFFONCE_PG_PASSWORD or a file named by"
                        + " --db-password-file / EFFONCE_PG_PASSWORD_FILE.";
            }
            if (m.contains("logical decoding requires wal_level")) {
                return "wal_level is not 'logical'. Fix: ALTER SYSTEM SET wal_level = logical; then"
                        + " restart PostgreSQL.";
            }
            if (m.contains("must be superuser or replication role")
                    || m.contains("permission denied to start WAL sender")
                    || m.contains("must have REPLICATION")
                    || m.contains("permission denied to use replication slots")) {
                return "role '"
                        + o.dbUser
                        + "' may not use replication ("
                        + m
                        + "). Fix: ALTER ROLE "
                        + o.dbUser
                        + " REPLICATION; as a superuser (deploy/sql/roles.sql).";
            }
            if (m.contains("Connection to") && m.contains("refused")) {
                return "cannot reach PostgreSQL at "
                        + o.dbUrl
                        + " ("
                        + m
                        + "). Fix: check that the server runs and --db-url is right.";
            }
            if (m.contains("does not exist") && m.contains("database")) {
                return m + ". Fix: point --db-url at the ledger database.";
            }
        }
        return String.valueOf(error);
    }

    private static final Pattern STORED_LSN = Pattern.compile("lsn=LSN\\{([0-9A-F/]+)\\}");

    /**
     * The stored offset points at WAL the server's slot does not have: the slot was lost and made
     * anew, so the changes from the offset to the new slot's start are in no slot.
     */
    private static String slotLost(RelayOptions o, String message) {
        Matcher lsn = STORED_LSN.matcher(message);
        return "refusing to resume: this relay's stored position"
                + (lsn.find() ? " (LSN " + lsn.group(1) + ")" : "")
                + " is not in slot '"
                + o.slot
                + "' on "
                + o.connectUrl()
                + ", so the changes committed between that position and the slot's start are in no"
                + " slot. The slot was lost: a failover to a standby without failover slots"
                + " (--slot-failover, PostgreSQL 17), a slot dropped by hand, or a database"
                + " restored from a backup. Way back (cdc-source/README.md, \"Ledger failover\"):"
                + " start the relay once with a fresh offset store (a"
                + " new --offsets-topic or --offsets-file) and --snapshot-mode initial; the job"
                + " drops the changes it counted by their event ids and the snapshot's other old"
                + " changes go to late_events; once the days the failover touched are final,"
                + " recount them (RecountCommand --day), which also drops what the lost primary"
                + " had streamed but the standby never received.";
    }
}
