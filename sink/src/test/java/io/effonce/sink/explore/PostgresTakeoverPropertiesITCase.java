package io.effonce.sink.explore;

import io.effonce.testing.PostgresEndpoint;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The takeover explored on the real PostgreSQL store: every history starts from empty tables, runs
 * real transactions with the fence checks, the conditional takeover and the commits, and ends
 * compared with the model, on a database of its own ({@link ExplorationDatabase}).
 */
class PostgresTakeoverPropertiesITCase {

    private static ExplorationDatabase database;
    private static PostgresEndpoint db;

    @BeforeContainer
    static void startPostgres() {
        database = ExplorationDatabase.start("effonce_explore");
        db = database.endpoint();
    }

    @AfterContainer
    static void stopPostgres() {
        database.close();
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
