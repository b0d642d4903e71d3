package io.effonce.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.jdbc.TransactionFailedException;
import io.effonce.sink.internal.SinkMisconfiguredException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A JDBC URL goes into logs and exception messages: what it may carry of a secret must not. */
class PostgresStoreConfigTest {

    private static final String URL =
            "jdbc:postgresql://db:5432/ledger?user=sink&password=s3cr3t&sslmode=require"
                    + "&sslpassword=k3y&ApplicationName=x";

    @Test
    void theTablesWrittenAreTheSinksOwnThenEverySharedTableOfSinkSql() {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url("jdbc:postgresql://h/db")
                        .username("u")
                        .password("p")
                        .table("clicks")
                        .build();
        assertThat(SinkTableDdl.tablesWritten(config))
                .startsWith("clicks", "clicks_staged", "clicks_committed")
                .contains(
                        "sink_fences",
                        "sink_writers",
                        "sink_superseded_runs",
                        "sink_live_deletes",
                        "sink_savepoint_barriers",
                        "sink_restart_gaps",
                        "sink_progress",
                        "sink_repairs")
                .hasSize(11);
    }

    /** The builder is the one way to configure: each refusal says what to set. */
    @Test
    void aConfigWithoutItsDatabaseTableOrExactlyOnePasswordSourceIsRefusedSayingWhatToSet() {
        assertThatThrownBy(() -> PostgresStoreConfig.builder().table("t").password("p").build())
                .hasMessageContaining("url(...) is required");
        assertThatThrownBy(() -> PostgresStoreConfig.builder().url(URL).password("p").build())
                .hasMessageContaining("table(...) is required");
        assertThatThrownBy(() -> PostgresStoreConfig.builder().url(URL).table("t").build())
                .hasMessageContaining("Set exactly one password source")
                .hasMessageContaining("none was set");
        assertThatThrownBy(
                        () ->
                                PostgresStoreConfig.builder()
                                        .url(URL)
                                        .table("t")
                                        .passwordFile("/run/secrets/p")
                                        .passwordEnv("P")
                                        .build())
                .hasMessageContaining("2 were set");
        assertThatThrownBy(
                        () ->
                                PostgresStoreConfig.builder()
                                        .url(URL)
                                        .table("t")
                                        .password("p")
                                        .idleInTransactionTimeout(Duration.ofMillis(10))
                                        .build())
                .hasMessageContaining("sink.idle-in-transaction-timeout must be at least 1 s")
                .hasMessageContaining("PT0.01S");
    }

    /** Every session option is reachable from Flink configuration, by its option's name. */
    @Test
    void theSessionOptionsComeFromFlinkConfiguration() {
        org.apache.flink.configuration.Configuration flink =
                new org.apache.flink.configuration.Configuration();
        flink.set(FlushableSinkOptions.MAX_RETRIES, 2);
        flink.set(FlushableSinkOptions.RETRY_BACKOFF, Duration.ofSeconds(1));
        flink.set(FlushableSinkOptions.IDLE_IN_TRANSACTION_TIMEOUT, Duration.ofSeconds(30));
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(URL)
                        .table("t")
                        .passwordEnv("P")
                        .options(flink)
                        .build();
        assertThat(config.user()).isEqualTo(PostgresStoreConfig.DEFAULT_USER);
        assertThat(config.maxRetries()).isEqualTo(2);
        assertThat(config.retryBackoff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.idleInTransactionTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.toBuilder().table("other").build().maxRetries()).isEqualTo(2);
    }

    @Test
    void theUrlIsPrintedWithoutItsSecrets() {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(URL)
                        .username("sink")
                        .password("direct")
                        .table("totals")
                        .build();

        assertThat(config.toString())
                .doesNotContain("s3cr3t", "k3y", "direct")
                .contains("password=***", "sslpassword=***", "sslmode=require", "db:5432/ledger");
    }

    /** Only the session resolves the password: no accessor hands it to a caller or a log line. */
    @Test
    void noAccessorButTheSessionsReturnsThePassword() throws Exception {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(URL)
                        .username("sink")
                        .password("direct")
                        .table("totals")
                        .build();
        for (Method m : PostgresStoreConfig.class.getMethods()) {
            if (m.getParameterCount() == 0
                    && !Modifier.isStatic(m.getModifiers())
                    && m.getDeclaringClass() == PostgresStoreConfig.class) {
                assertThat(String.valueOf(m.invoke(config)))
                        .as(m.getName())
                        .doesNotContain("direct");
            }
        }
        assertThat(config.session().resolvePassword())
                .as("resolved only where the sink's sessions run")
                .isEqualTo("direct");
    }

    @Test
    void anErrorOfTheStoreNamesTheUrlWithoutItsSecrets() {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(URL)
                        .username("sink")
                        .password("direct")
                        .table("totals")
                        .build();
        TransactionFailedException e =
                new TransactionFailedException(
                        "Writing 1 rows",
                        config.session(),
                        new SQLException("refused", "28P01"),
                        0);

        assertThat(e.getMessage()).doesNotContain("s3cr3t", "k3y").contains("db:5432/ledger");
    }

    /**
     * A right refused on a sink's own tables (a SQL connector's, which deploy/sql/roles.sql does
     * not list): the refusal names the grants, and the order against roles.sql, which revokes what
     * it does not list.
     */
    @Test
    void aRefusedRightOnASinksOwnTablesNamesItsGrants() {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(URL)
                        .username("sink")
                        .password("direct")
                        .table("totals")
                        .build();
        TransactionFailedException refused =
                new TransactionFailedException(
                        "Taking a range",
                        config.session(),
                        new SQLException("permission denied for table totals", "42501"),
                        0);
        String script = "CREATE TABLE t (k text);\nGRANT SELECT ON totals TO \"sink\";\n";

        assertThat(new SinkMisconfiguredException(refused, Optional.of(script)).getMessage())
                .contains("permission denied for table totals")
                .contains("after it, grant this sink's own tables: GRANT SELECT ON totals TO")
                .contains("begins by revoking what it does not list")
                .doesNotContain("CREATE TABLE t");
        assertThat(new SinkMisconfiguredException(refused, Optional.empty()).getMessage())
                .as("the job's own tables: roles.sql lists them")
                .doesNotContain("GRANT");
    }

    /** A bound under a second would end the transactions of tasks that are merely busy. */
    @Test
    void anIdleInTransactionBoundUnderASecondIsRefusedNamingTheOption() {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(URL)
                        .username("sink")
                        .password("direct")
                        .table("totals")
                        .build();

        assertThat(config.idleInTransactionTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(
                        config.toBuilder()
                                .idleInTransactionTimeout(Duration.ofSeconds(1))
                                .build()
                                .idleInTransactionTimeout())
                .isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(
                        () ->
                                config.toBuilder()
                                        .idleInTransactionTimeout(Duration.ofMillis(999))
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sink.idle-in-transaction-timeout must be at least 1 s");
    }

    /** A table name goes into SQL text: anything but a plain lower-case identifier is refused. */
    @Test
    void aTableNameThatIsNotAPlainIdentifierIsRefusedNamingTheOptionAndTheValue() {
        for (String refused :
                new String[] {"Totals", "totals; DROP TABLE x", "a.b.c", "1totals", "", "\"t\""}) {
            assertThatThrownBy(
                            () ->
                                    PostgresStoreConfig.builder()
                                            .url(URL)
                                            .username("sink")
                                            .password("direct")
                                            .table(refused)
                                            .build())
                    .as(refused)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "sink.table must be a lower-case table name (letters, digits,"
                                    + " underscores, optionally schema.table), was '"
                                    + refused
                                    + "'");
        }
        assertThat(
                        PostgresStoreConfig.builder()
                                .url(URL)
                                .username("sink")
                                .password("direct")
                                .table("public.totals_2")
                                .build()
                                .table())
                .isEqualTo("public.totals_2");
    }

    /** The committed table's name is the table's plus a suffix, within PostgreSQL's 63 bytes. */
    @Test
    void aTableNameWithoutRoomForTheCommittedSuffixIsRefused() {
        String longest = "t".repeat(53);
        assertThat(
                        PostgresStoreConfig.builder()
                                .url(URL)
                                .username("sink")
                                .password("direct")
                                .table(longest)
                                .build()
                                .committedTable())
                .hasSize(63);
        assertThatThrownBy(
                        () ->
                                PostgresStoreConfig.builder()
                                        .url(URL)
                                        .username("sink")
                                        .password("direct")
                                        .table(longest + "t")
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("sink.table must leave room for the suffix _committed")
                .hasMessageContaining("(at most 53)");
    }

    @Test
    void aNegativeRetryCountIsRefusedNamingTheOption() {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(URL)
                        .username("sink")
                        .password("direct")
                        .table("totals")
                        .build();
        assertThatThrownBy(
                        () ->
                                config.toBuilder()
                                        .maxRetries(-1)
                                        .retryBackoff(Duration.ofMillis(200))
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sink.max-retries must be 0 or more, was -1");
        assertThat(
                        config.toBuilder()
                                .maxRetries(0)
                                .retryBackoff(Duration.ofMillis(200))
                                .build()
                                .maxRetries())
                .isZero();
    }
}
