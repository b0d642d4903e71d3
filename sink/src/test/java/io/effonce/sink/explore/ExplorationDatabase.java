package io.effonce.sink.explore;

import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;

/**
 * A database with the project's schemas for a jqwik property class: jqwik runs no JUnit extensions,
 * so the class starts its own PostgreSQL, or uses the external one the environment names, as every
 * other test does.
 */
final class ExplorationDatabase implements AutoCloseable {

    private final EmbeddedPostgres embedded;
    private final PostgresEndpoint endpoint;

    private ExplorationDatabase(EmbeddedPostgres embedded, PostgresEndpoint endpoint) {
        this.embedded = embedded;
        this.endpoint = endpoint;
    }

    /** A new database named after {@code prefix}, its schemas applied. */
    static ExplorationDatabase start(String prefix) {
        var external = LocalServices.externalPostgres(System.getenv());
        EmbeddedPostgres embedded = external.isPresent() ? null : EmbeddedPostgres.start();
        PostgresEndpoint admin = external.orElseGet(embedded::endpoint);
        PostgresEndpoint db = LocalServices.newDatabase(admin, prefix);
        SchemaTool.applyAll(db);
        return new ExplorationDatabase(embedded, db);
    }

    PostgresEndpoint endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
