package io.effonce.sink;

import java.time.Duration;

/** What {@link PostgresStoreConfig} requires of its settings, naming each option. */
final class StoreSessionRules {

    private static final Duration MIN_IDLE_IN_TRANSACTION = Duration.ofSeconds(1);

    private StoreSessionRules() {}

    static void requireWhere(String jdbcUrl, String table) {
        if (jdbcUrl == null) {
            throw new IllegalArgumentException(
                    "url(...) is required: the sink's database, a jdbc:postgresql:// URL");
        }
        if (table == null) {
            throw new IllegalArgumentException("table(...) is required: the table the sink writes");
        }
    }

    static void require(int maxRetries, Duration idleInTransactionTimeout) {
        if (maxRetries < 0) {
            throw new IllegalArgumentException(
                    "sink.max-retries must be 0 or more, was " + maxRetries);
        }
        if (idleInTransactionTimeout == null
                || idleInTransactionTimeout.compareTo(MIN_IDLE_IN_TRANSACTION) < 0) {
            throw new IllegalArgumentException(
                    "sink.idle-in-transaction-timeout must be at least 1 s (a shorter bound ends"
                            + " the transactions of live tasks), was "
                            + idleInTransactionTimeout);
        }
    }
}
