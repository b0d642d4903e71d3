package io.effonce.sink;

import io.effonce.credentials.PasswordFile;
import io.effonce.jdbc.SessionSettings;
import io.effonce.sink.internal.postgres.SqlIdentifier;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where the sink's PostgreSQL is and how to log in. The password travels as a reference (a file or
 * an environment variable, resolved in the task) unless a caller hands one over directly ({@link
 * #of}: tests, embedded databases); no accessor returns it, and it never appears in {@link
 * #toString()}.
 */
@PublicEvolving
public final class PostgresStoreConfig implements Serializable, SessionSettings {

    private static final long serialVersionUID = 1L;

    private final String jdbcUrl;
    private final String user;
    private final String passwordEnv;
    private final String passwordFile;
    private final String password;
    private final String table;
    private final int maxRetries;
    private final Duration retryBackoff;
    private final Duration idleInTransactionTimeout;

    private PostgresStoreConfig(
            String jdbcUrl,
            String user,
            String passwordEnv,
            String passwordFile,
            String password,
            String table,
            int maxRetries,
            Duration retryBackoff,
            Duration idleInTransactionTimeout) {
        this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        this.user = Objects.requireNonNull(user, "user");
        SqlIdentifier.require("sink.table", table);
        String name = table.substring(table.indexOf('.') + 1);
        if (name.length() + COMMITTED_SUFFIX.length() > 63) {
            throw new IllegalArgumentException(
                    "sink.table must leave room for the suffix "
                            + COMMITTED_SUFFIX
                            + " of its committed table within PostgreSQL's 63 characters (at most"
                            + " 53), was '"
                            + table
                            + "'");
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException(
                    "sink.max-retries must be 0 or more, was " + maxRetries);
        }
        this.passwordEnv = passwordEnv;
        this.passwordFile = passwordFile;
        this.password = password;
        this.table = table;
        this.maxRetries = maxRetries;
        this.retryBackoff = Objects.requireNonNull(retryBackoff, "retryBackoff");
        if (idleInTransactionTimeout.compareTo(MIN_IDLE_IN_TRANSACTION) < 0) {
            throw new IllegalArgumentException(
                    "sink.idle-in-transaction-timeout must be at least 1 s (a shorter bound ends"
                            + " the transactions of live tasks), was "
                            + idleInTransactionTimeout);
        }
        this.idleInTransactionTimeout = idleInTransactionTimeout;
    }

    /** The password from the first line of {@code passwordFile}, read in the task. */
    public static PostgresStoreConfig withPasswordFile(
            String jdbcUrl, String user, String passwordFile, String table) {
        return withDefaults(
                jdbcUrl,
                user,
                null,
                Objects.requireNonNull(passwordFile, "passwordFile"),
                null,
                table);
    }

    /** The password from the environment variable {@code passwordEnv} of the task's process. */
    public static PostgresStoreConfig withPasswordEnv(
            String jdbcUrl, String user, String passwordEnv, String table) {
        return withDefaults(
                jdbcUrl,
                user,
                Objects.requireNonNull(passwordEnv, "passwordEnv"),
                null,
                null,
                table);
    }

    /** A config with the password given directly (tests, embedded databases). */
    public static PostgresStoreConfig of(
            String jdbcUrl, String user, String password, String table) {
        return withDefaults(jdbcUrl, user, null, null, password, table);
    }

    private static PostgresStoreConfig withDefaults(
            String jdbcUrl,
            String user,
            String passwordEnv,
            String passwordFile,
            String password,
            String table) {
        return new PostgresStoreConfig(
                jdbcUrl,
                user,
                passwordEnv,
                passwordFile,
                password,
                table,
                DEFAULT_RETRIES,
                DEFAULT_BACKOFF,
                DEFAULT_IDLE_IN_TRANSACTION);
    }

    private static final int DEFAULT_RETRIES = 5;
    private static final Duration DEFAULT_BACKOFF = Duration.ofMillis(200);
    private static final Duration DEFAULT_IDLE_IN_TRANSACTION = Duration.ofSeconds(20);
    private static final Duration MIN_IDLE_IN_TRANSACTION = Duration.ofSeconds(1);

    @Override
    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public String user() {
        return user;
    }

    /** The live table's name; the committed and staged tables' names follow from it. */
    public String table() {
        return table;
    }

    @Override
    public int maxRetries() {
        return maxRetries;
    }

    @Override
    public Duration retryBackoff() {
        return retryBackoff;
    }

    @Override
    public Duration idleInTransactionTimeout() {
        return idleInTransactionTimeout;
    }

    /** What the committed table's name adds to the totals table's (the longest suffix). */
    static final String COMMITTED_SUFFIX = "_committed";

    /** Values staged at a checkpoint barrier, waiting for the checkpoint to complete. */
    public String stagedTable() {
        return table + "_staged";
    }

    /**
     * Every table this sink writes: its own three, then those every sink of the database shares
     * (deploy/sql/sink.sql): what a job's start-up check asks the login's rights on.
     */
    public List<String> tablesWritten() {
        List<String> all = new ArrayList<>(List.of(table, stagedTable(), committedTable()));
        all.addAll(SinkTableDdl.sharedTableNames());
        return all;
    }

    /** Each key's value as of the latest completed checkpoint: the committed read contract. */
    public String committedTable() {
        return table + COMMITTED_SUFFIX;
    }

    public PostgresStoreConfig withRetries(int retries, Duration backoff) {
        return new PostgresStoreConfig(
                jdbcUrl,
                user,
                passwordEnv,
                passwordFile,
                password,
                table,
                retries,
                backoff,
                idleInTransactionTimeout);
    }

    public PostgresStoreConfig withIdleInTransactionTimeout(Duration timeout) {
        return new PostgresStoreConfig(
                jdbcUrl,
                user,
                passwordEnv,
                passwordFile,
                password,
                table,
                maxRetries,
                retryBackoff,
                Objects.requireNonNull(timeout, "timeout"));
    }

    public PostgresStoreConfig withTable(String otherTable) {
        return new PostgresStoreConfig(
                jdbcUrl,
                user,
                passwordEnv,
                passwordFile,
                password,
                otherTable,
                maxRetries,
                retryBackoff,
                idleInTransactionTimeout);
    }

    /** The password: from the file if one is named, else the environment variable, else given. */
    @Override
    public String resolvePassword() {
        if (passwordFile != null) {
            return PasswordFile.read(Path.of(passwordFile), "The sink's password file setting");
        }
        if (passwordEnv != null) {
            String value = System.getenv(passwordEnv);
            if (value == null) {
                throw new IllegalStateException(
                        "The sink's password variable " + passwordEnv + " is not set in this task");
            }
            return value;
        }
        return password == null ? "" : password;
    }

    @Override
    public String toString() {
        return "PostgresStoreConfig["
                + redacted(jdbcUrl)
                + ", user="
                + user
                + ", table="
                + table
                + "]";
    }

    /**
     * The URL without the values of parameters that can hold secrets ({@code password}, {@code
     * sslpassword}, {@code sslkey}...): a URL goes into logs and exception messages.
     */
    public static String redacted(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)([?&;](?:[a-z]*password|sslkey|sslcert)=)[^&;]*", "$1***");
    }
}
