package io.effonce.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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

    /**
     * The same database as {@code role}, after giving the role {@code password} (this endpoint must
     * be a superuser's): every login needs its password, as on a real server.
     */
    public PostgresEndpoint withPasswordFor(String role, String password) {
        try (Connection c = connect();
                PreparedStatement s =
                        c.prepareStatement(
                                "SELECT format('ALTER ROLE %I PASSWORD %L', ?::text, ?::text)")) {
            s.setString(1, role);
            s.setString(2, password);
            try (ResultSet rs = s.executeQuery();
                    Statement alter = c.createStatement()) {
                rs.next();
                alter.execute(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Cannot set the password of " + role + ": " + e.getMessage(), e);
        }
        return as(role, password);
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
