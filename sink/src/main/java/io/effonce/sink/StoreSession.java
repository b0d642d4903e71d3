package io.effonce.sink;

import io.effonce.jdbc.SessionSettings;
import java.io.Serializable;
import java.time.Duration;

/**
 * A {@link PostgresStoreConfig} as the jdbc module's sessions take it, kept out of the config's
 * public face; its {@link #toString()} is the config's, without the password.
 */
final class StoreSession implements SessionSettings, Serializable {

    private static final long serialVersionUID = 1L;

    private final PostgresStoreConfig config;

    StoreSession(PostgresStoreConfig config) {
        this.config = config;
    }

    @Override
    public String jdbcUrl() {
        return config.jdbcUrl();
    }

    @Override
    public String user() {
        return config.user();
    }

    @Override
    public String resolvePassword() {
        return config.resolvedPassword();
    }

    @Override
    public int maxRetries() {
        return config.maxRetries();
    }

    @Override
    public Duration retryBackoff() {
        return config.retryBackoff();
    }

    @Override
    public Duration idleInTransactionTimeout() {
        return config.idleInTransactionTimeout();
    }

    @Override
    public String toString() {
        return config.toString();
    }
}
