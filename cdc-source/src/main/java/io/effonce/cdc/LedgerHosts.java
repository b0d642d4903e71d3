package io.effonce.cdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosts a {@code --db-url} lists ({@code jdbc:postgresql://a:5432,b:5432/ledger}): the relay
 * streams from the one that is the primary when it starts. After a failover the relay's stream
 * breaks, it exits, and its next start finds the promoted standby; with failover slots its slot is
 * there, at a position no later than the standby received.
 */
final class LedgerHosts {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerHosts.class);
    private static final String SCHEME = "jdbc:postgresql://";

    private LedgerHosts() {}

    /** Each host of {@code jdbcUrl} as a URL of its own, with the same database and parameters. */
    static List<String> each(String jdbcUrl) {
        if (jdbcUrl == null || !jdbcUrl.startsWith(SCHEME)) {
            return List.of(String.valueOf(jdbcUrl));
        }
        String rest = jdbcUrl.substring(SCHEME.length());
        int slash = rest.indexOf('/');
        if (slash < 0) {
            return List.of(jdbcUrl);
        }
        List<String> urls = new ArrayList<>();
        for (String host : rest.substring(0, slash).split(",")) {
            urls.add(SCHEME + host + rest.substring(slash));
        }
        return urls;
    }

    /**
     * The URL of the one host that is a primary now. With one host, that host, unchecked: the
     * preflight says what is wrong with it. With several, each is asked in turn; none being a
     * primary, or none answering, is an error naming what each said.
     */
    static String primary(RelayOptions o) {
        List<String> hosts = each(o.dbUrl);
        if (hosts.size() == 1) {
            return hosts.get(0);
        }
        Properties props = new Properties();
        props.setProperty("user", o.dbUser);
        props.setProperty("password", o.dbPassword);
        props.setProperty("connectTimeout", "5");
        props.setProperty("ApplicationName", "effonce-relay-preflight");
        List<String> found = new ArrayList<>();
        for (String url : hosts) {
            try (Connection c = DriverManager.getConnection(url, props);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    LOG.info("Streaming from the primary {} of {}", url, o.dbUrl);
                    return url;
                }
                found.add(url + ": a standby (in recovery)");
            } catch (SQLException e) {
                found.add(url + ": " + e.getMessage());
            }
        }
        throw new RelayStartupException(
                "none of the hosts in --db-url is a primary now ("
                        + String.join("; ", found)
                        + "). A failover may be under way: the relay exits, and its next start"
                        + " asks again.");
    }
}
