package io.effonce.sink.store;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the sink's PostgreSQL is and how to log in. The password travels as a reference (a file or
 * an environment variable, resolved in the task) unless a caller hands one over directly; it never
 * appears in {@link #toString()}.
 */
public record PostgresStoreConfig(
        String jdbcUrl,
        String user,
        String passwordEnv,
        String passwordFile,
        String password,
        String table,
        int maxRetries,
        Duration retryBackoff)
        implements Serializable {

    public PostgresStoreConfig {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        SqlIdentifier.require("sink.table", table);
        if (maxRetries < 0) {
            throw new IllegalArgumentException(
                    "sink.max-retries must be 0 or more, was " + maxRetries);
        }
        Objects.requireNonNull(retryBackoff, "retryBackoff");
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
    String resolvePassword() {
        if (passwordFile != null) {
            try {
                return Files.readString(Path.of(passwordFile), StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "The sink's password file " + passwordFile + " cannot be read", e);
            }
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
        return "PostgresStoreConfig[" + jdbcUrl + ", user=" + user + ", table=" + table + "]";
    }
}
