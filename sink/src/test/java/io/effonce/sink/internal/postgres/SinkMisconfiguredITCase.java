package io.effonce.sink.internal.postgres;

import static io.effonce.sink.testutils.SinkHarnesses.opened;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.internal.SinkMisconfiguredException;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.junit.PostgresExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A sink that starts against a database without its tables, or with a wrong password, fails once
 * with the fix in its message and an exception Flink does not restart into; a database that is
 * merely down is still retried and restored (it is not a misconfiguration).
 */
@ExtendWith(PostgresExtension.class)
class SinkMisconfiguredITCase {

    @Test
    void missingTablesAndAWrongPasswordFailWithoutRestartsNamingTheFix(PostgresEndpoint db) {
        PostgresEndpoint bare = LocalServices.newDatabase(db, "effonce_bare");
        assertThatThrownBy(() -> opened(sink(bare), TypeInformation.of(TestKey.class)))
                .isInstanceOf(SinkMisconfiguredException.class)
                .hasMessageContaining("lack table merchant_daily_totals,")
                .hasMessageContaining("Apply deploy/sql/sink.sql again")
                .satisfies(SinkMisconfiguredITCase::notRestarted);

        PostgresEndpoint wrong =
                db.withPasswordFor("effonce_sink", "right").as("effonce_sink", "wrong");
        assertThatThrownBy(() -> opened(sink(wrong), TypeInformation.of(TestKey.class)))
                .isInstanceOf(SinkMisconfiguredException.class)
                .hasMessageContaining("password authentication failed")
                .hasMessageContaining("Check the user and password")
                .satisfies(SinkMisconfiguredITCase::notRestarted);
    }

    /**
     * Tables made by an earlier release's deploy/sql/sink.sql lack what this one needs: the start
     * names each thing (the newest column, the sequence that numbers deployments) instead of a
     * statement failing on it later, or a deployment running unnumbered.
     */
    @Test
    void tablesOfAnEarlierScriptAreRefusedNamingWhatTheyLack(PostgresEndpoint server)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(server, "effonce_old_script");
        SchemaTool.applyAll(db);
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            st.execute("ALTER TABLE sink_fences DROP COLUMN owner_suspect_from");
            st.execute("DROP SEQUENCE sink_deployment");
        }
        assertThatThrownBy(() -> opened(sink(db), TypeInformation.of(TestKey.class)))
                .isInstanceOf(SinkMisconfiguredException.class)
                .hasMessageContaining("column sink_fences.owner_suspect_from")
                .hasMessageContaining("the sequence sink_deployment")
                .hasMessageContaining("Apply deploy/sql/sink.sql again")
                .satisfies(SinkMisconfiguredITCase::notRestarted);
    }

    @Test
    void aDatabaseThatIsDownIsNotAMisconfiguration() {
        PostgresEndpoint down =
                new PostgresEndpoint("jdbc:postgresql://127.0.0.1:1/ledger", "effonce_sink", "x");
        assertThatThrownBy(() -> opened(sink(down), TypeInformation.of(TestKey.class)))
                .isNotInstanceOf(SinkMisconfiguredException.class)
                .satisfies(
                        e ->
                                assertThat(ThrowableClassifier.getThrowableType(e))
                                        .isNotEqualTo(ThrowableType.NonRecoverableError));
    }

    /**
     * Where the job's graph is built, a database that cannot number the deployment stops the build
     * with the cause and the option that lets it run unordered; with the option false it runs.
     */
    @Test
    void aDeploymentTheDatabaseCannotNumberIsNotBuiltUnlessAllowedToRunUnordered() {
        PostgresEndpoint down =
                new PostgresEndpoint("jdbc:postgresql://127.0.0.1:1/ledger", "effonce_sink", "x");
        FlushableSink<TestKey, TestTotal> required = sink(down, true);
        assertThatThrownBy(required::createOperator)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Could not number this deployment of merchant_daily_totals")
                .hasMessageContaining("127.0.0.1:1")
                .hasMessageContaining("set sink.require-deployment-number to false");
        assertThat(sink(down).createOperator()).isNotNull();
    }

    private static void notRestarted(Throwable e) {
        assertThat(ThrowableClassifier.getThrowableType(e))
                .as("Flink's classification: no restart")
                .isEqualTo(ThrowableType.NonRecoverableError);
    }

    private static FlushableSink<TestKey, TestTotal> sink(PostgresEndpoint db) {
        // the operator's open is under test, not the numbering where it is built
        return sink(db, false);
    }

    private static FlushableSink<TestKey, TestTotal> sink(
            PostgresEndpoint db, boolean requireDeploymentNumber) {
        PostgresStoreConfig config =
                PostgresStoreConfig.builder()
                        .url(db.jdbcUrl())
                        .username(db.user())
                        .password(db.password())
                        .table("merchant_daily_totals")
                        .build()
                        .toBuilder()
                        .maxRetries(1)
                        .retryBackoff(Duration.ofMillis(10))
                        .requireDeploymentNumber(requireDeploymentNumber)
                        .build();
        return FlushableSink.<TestKey, TestTotal>builder()
                .store(PostgresStores.deployed(config, TestRows.MAPPING))
                .valueType(TypeInformation.of(TestTotal.class))
                .build();
    }
}
