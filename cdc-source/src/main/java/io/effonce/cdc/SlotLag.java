package io.effonce.cdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How much WAL the ledger keeps for the relay's slot: a slot that falls behind (the relay down, or
 * slower than the ledger) makes the ledger keep its WAL until its disk fills.
 */
final class SlotLag {

    private static final Logger LOG = LoggerFactory.getLogger(SlotLag.class);

    private static final String RETAINED =
            "SELECT pg_current_wal_lsn() - confirmed_flush_lsn FROM pg_replication_slots"
                    + " WHERE slot_name = ?";

    private final RelayOptions options;

    SlotLag(RelayOptions options) {
        this.options = options;
    }

    /** The retained bytes, or empty when the ledger cannot be read or holds no such slot. */
    OptionalLong retainedWalBytes() {
        Properties props = new Properties();
        props.setProperty("user", options.dbUser);
        props.setProperty("password", options.dbPassword);
        props.setProperty("connectTimeout", "5");
        props.setProperty("socketTimeout", "10");
        props.setProperty("ApplicationName", "effonce-relay-metrics");
        try (Connection c = DriverManager.getConnection(options.connectUrl(), props);
                PreparedStatement s = c.prepareStatement(RETAINED)) {
            s.setString(1, options.slot);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next() && rs.getObject(1) != null) {
                    return OptionalLong.of(rs.getLong(1));
                }
                return OptionalLong.empty();
            }
        } catch (SQLException e) {
            LOG.warn(
                    "Cannot read slot {}'s retained WAL for the metrics ({}): left out of this"
                            + " scrape",
                    options.slot,
                    e.getMessage());
            return OptionalLong.empty();
        }
    }
}
