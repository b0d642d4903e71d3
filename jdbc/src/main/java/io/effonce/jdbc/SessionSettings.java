package io.effonce.jdbc;

import java.time.Duration;

/**
 * Where a {@link RetryingSession} connects, as whom, and how often it retries. Its {@link
 * #toString()} goes into log lines and messages, so it must not show the password.
 */
public interface SessionSettings {

    String jdbcUrl();

    String user();

    /** The password, resolved where the session runs (a file, a variable, or given). */
    String resolvePassword();

    /** How many times a transaction that failed for a lost connection is retried. */
    int maxRetries();

    /** The wait before the first retry; it doubles with each retry, up to 5 s. */
    Duration retryBackoff();

    /**
     * How long the server keeps one of this session's transactions open while the session is silent
     * (its task paused or cut from the network) before it ends it and frees its locks.
     */
    Duration idleInTransactionTimeout();
}
