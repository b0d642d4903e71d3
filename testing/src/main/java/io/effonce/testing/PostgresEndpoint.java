package io.effonce.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Where a PostgreSQL database is and how to log in. The password never appears in {@link
 * #toString()}.
 */
public record PostgresEndpoint(String jdbcUrl, String user, String password) {

    public PostgresEndpoint {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        password = password == null ? "" : password;
    }

    /** Opens a new connection with this endpoint's credentials. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /** The same database, logged in as another role. */
    public PostgresEndpoint as(String otherUser, String otherPassword) {
        return new PostgresEndpoint(jdbcUrl, otherUser, otherPassword);
    }

    @Override
    public String toString() {
        return "PostgresEndpoint[" + jdbcUrl + ", user=" + user + "]";
    }
}
