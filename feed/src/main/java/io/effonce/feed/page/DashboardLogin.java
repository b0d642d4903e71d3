package io.effonce.feed.page;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * Where the page reads and as whom: a PostgreSQL JDBC URL, a role (normally {@code
 * effonce_dashboard}) and its password. The password never appears in {@link #toString()} or a log
 * line.
 */
public record DashboardLogin(String jdbcUrl, String user, String password) {

    public DashboardLogin {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        password = password == null ? "" : password;
    }

    /** A new connection, named after the page in {@code pg_stat_activity}. */
    Connection connect(String purpose) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("ApplicationName", "effonce live page (" + purpose + ")");
        p.setProperty("connectTimeout", "10");
        return DriverManager.getConnection(jdbcUrl, p);
    }

    @Override
    public String toString() {
        // a URL's parameters may carry a password too: leave them out
        int query = jdbcUrl.indexOf('?');
        String where = query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?…";
        return "DashboardLogin[" + where + ", user=" + user + "]";
    }
}
