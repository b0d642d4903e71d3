package io.effonce.credentials;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * Where a command reads and as whom: a PostgreSQL JDBC URL, a role (the live page's {@code
 * effonce_dashboard}, the recount's {@code effonce_recount}, the republish's {@code
 * effonce_republish}) and its password. The password never appears in {@link #toString()} or a log
 * line.
 */
public record DatabaseLogin(String jdbcUrl, String user, String password) {

    public DatabaseLogin {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        password = password == null ? "" : password;
    }

    /**
     * The password from the first line of {@code file} if one is given, else from the environment
     * variable {@code envVar}, else none.
     */
    public static String password(Path file, String envVar, Map<String, String> env) {
        if (file != null) {
            return PasswordFile.read(file, "--password-file");
        }
        return env.getOrDefault(envVar, "");
    }

    /** A new connection, named {@code "effonce " + purpose} in {@code pg_stat_activity}. */
    public Connection connect(String purpose) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("ApplicationName", "effonce " + purpose);
        p.setProperty("connectTimeout", "10");
        return DriverManager.getConnection(jdbcUrl, p);
    }

    @Override
    public String toString() {
        // a URL's parameters may carry a password too: leave them out
        int query = jdbcUrl.indexOf('?');
        String where = query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?…";
        return "DatabaseLogin[" + where + ", user=" + user + "]";
    }
}
