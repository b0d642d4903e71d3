package io.effonce.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.jdbc.TransactionFailedException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A JDBC URL goes into logs and exception messages: what it may carry of a secret must not. */
class PostgresStoreConfigTest {

    private static final String URL =
            "jdbc:postgresql://db:5432/ledger?user=sink&password=s3cr3t&sslmode=require"
                    + "&sslpassword=k3y&ApplicationName=x";

    @Test
    void theUrlIsPrintedWithoutItsSecrets() {
        PostgresStoreConfig config = PostgresStoreConfig.of(URL, "sink", "direct", "totals");

        assertThat(config.toString())
                .doesNotContain("s3cr3t", "k3y", "direct")
                .contains("password=***", "sslpassword=***", "sslmode=require", "db:5432/ledger");
    }

    /** Only the session resolves the password: no accessor hands it to a caller or a log line. */
    @Test
    void noAccessorButTheSessionsReturnsThePassword() throws Exception {
        PostgresStoreConfig config = PostgresStoreConfig.of(URL, "sink", "direct", "totals");
        for (Method m : PostgresStoreConfig.class.getMethods()) {
            if (m.getParameterCount() == 0
                    && !Modifier.isStatic(m.getModifiers())
                    && !m.getName().equals("resolvePassword")
                    && m.getDeclaringClass() == PostgresStoreConfig.class) {
                assertThat(String.valueOf(m.invoke(config)))
                        .as(m.getName())
                        .doesNotContain("direct");
            }
        }
        assertThat(config.resolvePassword()).isEqualTo("direct");
    }

    @Test
    void anErrorOfTheStoreNamesTheUrlWithoutItsSecrets() {
        PostgresStoreConfig config = PostgresStoreConfig.of(URL, "sink", "direct", "totals");
        TransactionFailedException e =
                new TransactionFailedException(
                        "Writing 1 rows", config, new SQLException("refused", "28P01"), 0);

        assertThat(e.getMessage()).doesNotContain("s3cr3t", "k3y").contains("db:5432/ledger");
    }

    /** A bound under a second would end the transactions of tasks that are merely busy. */
    @Test
    void anIdleInTransactionBoundUnderASecondIsRefusedNamingTheOption() {
        PostgresStoreConfig config = PostgresStoreConfig.of(URL, "sink", "direct", "totals");

        assertThat(config.idleInTransactionTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(
                        config.withIdleInTransactionTimeout(Duration.ofSeconds(1))
                                .idleInTransactionTimeout())
                .isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> config.withIdleInTransactionTimeout(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sink.idle-in-transaction-timeout must be at least 1 s");
    }
}
