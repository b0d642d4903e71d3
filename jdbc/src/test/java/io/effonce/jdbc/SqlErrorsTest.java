package io.effonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which failures a session retries, which rows it hands back as refused, and which fail the task.
 */
class SqlErrorsTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "08006", "08001", "57P01", "57P03", "53300", "40001", "40P01", "55P03", "25P03"
            })
    void aLostConnectionAConflictOrACutTransactionIsRetried(String state) {
        SQLException e = new SQLException("gone", state);
        assertThat(SqlErrors.isRetryable(e)).isTrue();
        assertThat(SqlErrors.isRefusedData(e)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"22021", "22003", "23505", "23514", "54000"})
    void whatTheRowsContainIsRefusedDataNeverRetried(String state) {
        SQLException e = new SQLException("bad row", state);
        assertThat(SqlErrors.isRefusedData(e)).isTrue();
        assertThat(SqlErrors.isRetryable(e)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"28P01", "42501", "42P01", "42703", "42601"})
    void authenticationPermissionsAndMissingTablesFailTheTask(String state) {
        SQLException e = new SQLException("will fail again", state);
        assertThat(SqlErrors.isRetryable(e)).isFalse();
        assertThat(SqlErrors.isRefusedData(e)).isFalse();
    }

    @Test
    void aCauseWithAStateDecidesAndATransientOneWithoutIsRetried() {
        SQLException wrapped = new SQLException("batch failed", (String) null);
        wrapped.initCause(new SQLException("connection reset", "08006"));
        assertThat(SqlErrors.isRetryable(wrapped)).isTrue();
        assertThat(SqlErrors.isRetryable(new SQLTransientConnectionException("timeout"))).isTrue();
        assertThat(SqlErrors.isRetryable(new SQLException("unknown"))).isFalse();
    }

    @Test
    void aMissingColumnSaysToApplyTheSinkSchemaAgain() {
        SessionSettings settings =
                new SessionSettings() {
                    @Override
                    public String jdbcUrl() {
                        return "jdbc:postgresql://db/ledger";
                    }

                    @Override
                    public String user() {
                        return "effonce_sink";
                    }

                    @Override
                    public String resolvePassword() {
                        return "";
                    }

                    @Override
                    public int maxRetries() {
                        return 0;
                    }

                    @Override
                    public Duration retryBackoff() {
                        return Duration.ZERO;
                    }

                    @Override
                    public Duration idleInTransactionTimeout() {
                        return Duration.ofSeconds(20);
                    }
                };
        SQLException e = new SQLException("column \"owner_graph\" does not exist", "42703");
        assertThat(new TransactionFailedException("Taking a range", settings, e, 0))
                .hasMessageContaining("SQLSTATE 42703")
                .hasMessageContaining("apply deploy/sql/sink.sql again");
    }
}
