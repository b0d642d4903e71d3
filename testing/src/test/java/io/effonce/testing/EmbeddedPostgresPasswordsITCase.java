package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The embedded server checks passwords as a real one does (scram-sha-256): a wrong password fails
 * here, not first in production; and it still does after a restart on the same data.
 */
class EmbeddedPostgresPasswordsITCase {

    @Test
    void aWrongPasswordIsRefusedBeforeAndAfterARestart() throws Exception {
        try (EmbeddedPostgres server = EmbeddedPostgres.start(0)) {
            PostgresEndpoint admin = server.endpoint();
            try (Connection c = admin.connect();
                    Statement s = c.createStatement()) {
                s.execute("CREATE ROLE effonce_someone LOGIN");
            }
            PostgresEndpoint role = admin.withPasswordFor("effonce_someone", "right");
            try (Connection c = role.connect()) {
                assertThat(c.isValid(5)).isTrue();
            }
            assertRefused(role.as("effonce_someone", "wrong"));
            assertRefused(admin.as("postgres", "wrong"));
            try (Connection c = admin.connect();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT rolname, rolpassword FROM pg_authid WHERE rolname IN"
                                            + " ('postgres', 'effonce_someone') ORDER BY 1")) {
                int verifiers = 0;
                while (rs.next()) {
                    verifiers++;
                    assertThat(rs.getString(2))
                            .as("%s's password: a SCRAM verifier of 16 iterations", rs.getString(1))
                            .startsWith("SCRAM-SHA-256$16:");
                }
                assertThat(verifiers).isEqualTo(2);
            }

            server.restart();
            try (Connection c = admin.connect()) {
                assertThat(c.isValid(5)).isTrue();
            }
            assertRefused(admin.as("postgres", "wrong"));
        }
    }

    private static void assertRefused(PostgresEndpoint login) {
        assertThatThrownBy(login::connect)
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("password authentication failed")
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("28P01"));
    }
}
