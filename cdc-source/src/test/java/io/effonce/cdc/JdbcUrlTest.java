package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The relay's reading of its JDBC URL, through pgjdbc's parser. */
class JdbcUrlTest {

    @Test
    void hostPortAndDatabaseWithTheDefaultPort() {
        assertThat(JdbcUrl.parse("jdbc:postgresql://db.example/ledger"))
                .isEqualTo(new JdbcUrl("db.example", 5432, "ledger", Map.of()));
        assertThat(JdbcUrl.parse("jdbc:postgresql://[::1]:6543/ledger").port()).isEqualTo(6543);
    }

    @Test
    void tlsParametersReachDebeziumInsteadOfBeingDropped() {
        assertThat(
                        JdbcUrl.parse(
                                        "jdbc:postgresql://db:5432/ledger?sslmode=verify-ca"
                                                + "&sslrootcert=/etc/ca.pem&sslcert=/etc/c.pem"
                                                + "&sslkey=/etc/c.key")
                                .tls())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "database.sslmode", "verify-ca",
                                "database.sslrootcert", "/etc/ca.pem",
                                "database.sslcert", "/etc/c.pem",
                                "database.sslkey", "/etc/c.key"));
        assertThat(JdbcUrl.parse("jdbc:postgresql://db/ledger?ssl=true").tls())
                .containsEntry("database.sslmode", "verify-full");
    }

    @Test
    void aUrlOfSeveralHostsIsOneUrlPerHostWithTheSameDatabaseAndParameters() {
        assertThat(
                        LedgerHosts.each(
                                "jdbc:postgresql://a:5432,b:6543/ledger?targetServerType=primary"))
                .containsExactly(
                        "jdbc:postgresql://a:5432/ledger?targetServerType=primary",
                        "jdbc:postgresql://b:6543/ledger?targetServerType=primary");
        assertThat(LedgerHosts.each("jdbc:postgresql://a/ledger"))
                .containsExactly("jdbc:postgresql://a/ledger");
    }

    @Test
    void anythingButOneHostAndADatabaseIsRefusedWithTheExpectedShape() {
        for (String bad :
                new String[] {
                    "jdbc:mysql://x/y",
                    "jdbc:postgresql://db:5432/",
                    "jdbc:postgresql:ledger",
                    "postgres://db/ledger"
                }) {
            assertThatThrownBy(() -> JdbcUrl.parse(bad))
                    .as(bad)
                    .hasMessageContaining("jdbc:postgresql://HOST:PORT[,HOST:PORT...]/DB")
                    .hasMessageContaining(bad);
        }
    }
}
