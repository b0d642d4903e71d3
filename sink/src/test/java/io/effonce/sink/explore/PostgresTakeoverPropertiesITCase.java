package io.effonce.sink.explore;

import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The takeover explored on the real PostgreSQL store: every history starts from empty tables, runs
 * real transactions with the fence checks, the conditional takeover and the commits, and ends
 * compared with the model. jqwik runs no JUnit extensions, so the class starts its own PostgreSQL
 * (or uses the external one the environment names, as every other test does).
 */
class PostgresTakeoverPropertiesITCase {

    private static EmbeddedPostgres embedded;
    private static PostgresEndpoint db;

    @BeforeContainer
    static void startPostgres() {
        var external = LocalServices.externalPostgres(System.getenv());
        embedded = external.isPresent() ? null : EmbeddedPostgres.start();
        PostgresEndpoint admin = external.orElseGet(embedded::endpoint);
        db = LocalServices.newDatabase(admin, "effonce_explore");
        SchemaTool.applyAll(db);
    }

    @AfterContainer
    static void stopPostgres() {
        if (embedded != null) {
            embedded.close();
        }
    }

    @Property(tries = 100)
    void noPausedAttemptRollsTheTotalsBack(@ForAll("histories") Histories.History history) {
        Histories.check(new PostgresExplored(db), history);
    }

    @Provide
    Arbitrary<Histories.History> histories() {
        return Histories.any();
    }
}
