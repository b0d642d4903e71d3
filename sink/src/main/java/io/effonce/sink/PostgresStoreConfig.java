package io.effonce.sink;

import io.effonce.jdbc.JdbcUrls;
import io.effonce.jdbc.SessionSettings;
import io.effonce.sink.internal.postgres.SqlIdentifier;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Where the sink's PostgreSQL is, how to log in, and how its sessions retry; made by {@link
 * #builder()}, the one way. The password travels as a reference (a file or an environment variable,
 * resolved in the task) unless a caller hands one over directly ({@link Builder#password}: tests,
 * embedded databases); it never appears in {@link #toString()}.
 */
@PublicEvolving
public final class PostgresStoreConfig implements Serializable {

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
    private final boolean lostWriteCheck;
    private final boolean requireDeploymentNumber;

    private PostgresStoreConfig(Builder b) {
        StoreSessionRules.requireWhere(b.jdbcUrl, b.table);
        SqlIdentifier.requireTable("sink.table", b.table, COMMITTED_SUFFIX);
        this.jdbcUrl = b.jdbcUrl;
        this.user = Objects.requireNonNull(b.user, "username");
        PasswordSource.requireOne(b.passwordFile, b.passwordEnv, b.password);
        StoreSessionRules.require(b.maxRetries, b.idleInTransactionTimeout);
        this.passwordEnv = b.passwordEnv;
        this.passwordFile = b.passwordFile;
        this.password = b.password;
        this.table = b.table;
        this.maxRetries = b.maxRetries;
        this.retryBackoff = Objects.requireNonNull(b.retryBackoff, "retryBackoff");
        this.idleInTransactionTimeout = b.idleInTransactionTimeout;
        this.lostWriteCheck = b.lostWriteCheck;
        this.requireDeploymentNumber = b.requireDeploymentNumber;
    }

    /** The one way to make a config: the database, the table, the login, the session's bounds. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this config, to change a setting (another table of the same database). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.jdbcUrl = jdbcUrl;
        b.user = user;
        b.passwordEnv = passwordEnv;
        b.passwordFile = passwordFile;
        b.password = password;
        b.table = table;
        b.maxRetries = maxRetries;
        b.retryBackoff = retryBackoff;
        b.idleInTransactionTimeout = idleInTransactionTimeout;
        b.lostWriteCheck = lostWriteCheck;
        b.requireDeploymentNumber = requireDeploymentNumber;
        return b;
    }

    /** {@link #build()} validates; each refusal names the setting and the value. */
    @PublicEvolving
    public static final class Builder {
        private String jdbcUrl;
        private String user = DEFAULT_USER;
        private String passwordEnv;
        private String passwordFile;
        private String password;
        private String table;
        private int maxRetries = FlushableSinkOptions.MAX_RETRIES.defaultValue();
        private Duration retryBackoff = FlushableSinkOptions.RETRY_BACKOFF.defaultValue();
        private Duration idleInTransactionTimeout =
                FlushableSinkOptions.IDLE_IN_TRANSACTION_TIMEOUT.defaultValue();
        private boolean lostWriteCheck = FlushableSinkOptions.LOST_WRITE_CHECK.defaultValue();
        private boolean requireDeploymentNumber =
                FlushableSinkOptions.REQUIRE_DEPLOYMENT_NUMBER.defaultValue();

        private Builder() {}

        /** The database: a {@code jdbc:postgresql://} URL (required). */
        public Builder url(String jdbcUrl) {
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        /** The live table, optionally schema-qualified; its committed and staged tables follow. */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** The login role (default {@value #DEFAULT_USER}). */
        public Builder username(String user) {
            this.user = user;
            return this;
        }

        /** The password from the first line of this file, read in the task. */
        public Builder passwordFile(String path) {
            this.passwordFile = Objects.requireNonNull(path, "passwordFile");
            return this;
        }

        /** The password from this environment variable of the task's process. */
        public Builder passwordEnv(String variable) {
            this.passwordEnv = Objects.requireNonNull(variable, "passwordEnv");
            return this;
        }

        /** The password itself (tests, embedded databases); it is in the job's graph. */
        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** {@code sink.max-retries}: retries of a transaction that lost its connection. */
        public Builder maxRetries(int retries) {
            this.maxRetries = retries;
            return this;
        }

        /** {@code sink.retry-backoff}: the first wait before a retry. */
        public Builder retryBackoff(Duration backoff) {
            this.retryBackoff = backoff;
            return this;
        }

        /** {@code sink.idle-in-transaction-timeout}: how long a silent transaction stays open. */
        public Builder idleInTransactionTimeout(Duration timeout) {
            this.idleInTransactionTimeout = timeout;
            return this;
        }

        /** {@code sink.lost-write-check}: whether writes check the database kept what it took. */
        public Builder lostWriteCheck(boolean check) {
            this.lostWriteCheck = check;
            return this;
        }

        /** {@code sink.require-deployment-number}: whether an unnumbered deployment may run. */
        public Builder requireDeploymentNumber(boolean required) {
            this.requireDeploymentNumber = required;
            return this;
        }

        /** The store's options above, from Flink configuration. */
        public Builder options(ReadableConfig config) {
            this.maxRetries = config.get(FlushableSinkOptions.MAX_RETRIES);
            this.retryBackoff = config.get(FlushableSinkOptions.RETRY_BACKOFF);
            this.idleInTransactionTimeout =
                    config.get(FlushableSinkOptions.IDLE_IN_TRANSACTION_TIMEOUT);
            this.lostWriteCheck = config.get(FlushableSinkOptions.LOST_WRITE_CHECK);
            this.requireDeploymentNumber =
                    config.get(FlushableSinkOptions.REQUIRE_DEPLOYMENT_NUMBER);
            return this;
        }

        public PostgresStoreConfig build() {
            return new PostgresStoreConfig(this);
        }
    }

    /** The login a config uses unless told otherwise: deploy/sql/roles.sql's. */
    public static final String DEFAULT_USER = "effonce_sink";

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String user() {
        return user;
    }

    /** The live table's name; the committed and staged tables' names follow from it. */
    public String table() {
        return table;
    }

    public int maxRetries() {
        return maxRetries;
    }

    public Duration retryBackoff() {
        return retryBackoff;
    }

    public Duration idleInTransactionTimeout() {
        return idleInTransactionTimeout;
    }

    /** {@code sink.lost-write-check}: whether each write transaction checks for lost writes. */
    public boolean lostWriteCheck() {
        return lostWriteCheck;
    }

    /** {@code sink.require-deployment-number}: whether an unnumbered deployment fails. */
    public boolean requireDeploymentNumber() {
        return requireDeploymentNumber;
    }

    /** What the committed table's name adds to the totals table's (the longest suffix). */
    static final String COMMITTED_SUFFIX = "_committed";

    /** Values staged at a checkpoint barrier, waiting for the checkpoint to complete. */
    @Internal
    public String stagedTable() {
        return table + "_staged";
    }

    /** Each key's value as of the latest completed checkpoint: the committed read contract. */
    public String committedTable() {
        return table + COMMITTED_SUFFIX;
    }

    /** What the sink's sessions connect with, the password resolved in the task: not public API. */
    @Internal
    public SessionSettings session() {
        return new StoreSession(this);
    }

    String resolvedPassword() {
        return PasswordSource.resolve(passwordFile, passwordEnv, password);
    }

    @Override
    public String toString() {
        return "PostgresStoreConfig["
                + JdbcUrls.redacted(jdbcUrl)
                + ", user="
                + user
                + ", table="
                + table
                + "]";
    }
}
