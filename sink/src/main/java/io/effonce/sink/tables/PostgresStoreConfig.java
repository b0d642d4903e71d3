package io.effonce.sink.tables;

import io.effonce.credentials.PasswordFile;
import io.effonce.jdbc.SessionSettings;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where the sink's PostgreSQL is and how to log in. The password travels as a reference (a file or
 * an environment variable, resolved in the task) unless a caller hands one over directly; it never
 * appears in {@link #toString()}.
 */
@PublicEvolving
public record PostgresStoreConfig(
        String jdbcUrl,
        String user,
        String passwordEnv,
        String passwordFile,
        String password,
        String table,
        int maxRetries,
        Duration retryBackoff)
        implements Serializable, SessionSettings {

    public PostgresStoreConfig {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
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
        Objects.requireNonNull(retryBackoff, "retryBackoff");
    }

    /** What the committed table's name adds to the totals table's (the longest suffix). */
    static final String COMMITTED_SUFFIX = "_committed";

    /** Values staged at a checkpoint barrier, waiting for the checkpoint to complete. */
    public String stagedTable() {
        return table + "_staged";
    }

    /** Each key's value as of the latest completed checkpoint: the committed read contract. */
    public String committedTable() {
        return table + COMMITTED_SUFFIX;
    }

    /** A config with the password given directly (tests, embedded databases). */
    public static PostgresStoreConfig of(
            String jdbcUrl, String user, String password, String table) {
        return new PostgresStoreConfig(
                jdbcUrl, user, null, null, password, table, 5, Duration.ofMillis(200));
    }

    public PostgresStoreConfig withRetries(int retries, Duration backoff) {
        return new PostgresStoreConfig(
                jdbcUrl, user, passwordEnv, passwordFile, password, table, retries, backoff);
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
                retryBackoff);
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
