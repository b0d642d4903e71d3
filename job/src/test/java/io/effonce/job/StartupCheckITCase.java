package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.tables.PostgresStoreConfig;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The checks {@code main} runs before the job is submitted, against a real PostgreSQL and Kafka:
 * each mistake a person makes on their own services is one sentence naming the fix; what main
 * cannot reach is no failure.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class StartupCheckITCase {

    private static final String TOPIC = "startup-check.public.payments";

    @Test
    void servicesAsDeployedPassAndEachMistakeIsOneSentenceNamingTheFix(
            PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        KafkaTopics.create(kafka.servers(), TOPIC, 1);
        assertThat(StartupCheck.sinkDatabase(sink(db))).isEmpty();
        assertThat(StartupCheck.topics(kafka.servers(), List.of(TOPIC))).isEmpty();

        PostgresEndpoint sinkRole = db.withPasswordFor("effonce_sink", "the-right-one");
        assertThat(StartupCheck.sinkDatabase(sink(sinkRole)))
                .as("effonce_sink may write everything the job writes (roles.sql)")
                .isEmpty();
        assertThat(StartupCheck.sinkDatabase(sink(sinkRole.as("effonce_sink", "a-wrong-one"))))
                .singleElement()
                .asString()
                .contains("refused the login of effonce_sink")
                .contains("password authentication failed")
                .contains("--postgres.password-file");

        PostgresEndpoint bare = LocalServices.newDatabase(db, "effonce_bare");
        assertThat(StartupCheck.sinkDatabase(sink(bare)))
                .singleElement()
                .asString()
                .contains("The sink's tables merchant_daily_totals, merchant_daily_totals_staged")
                .contains("are missing at")
                .contains("apply deploy/sql/sink.sql and deploy/sql/roles.sql");

        assertThat(StartupCheck.topics(kafka.servers(), List.of(TOPIC, "no-such-topic")))
                .singleElement()
                .asString()
                .startsWith("The topic no-such-topic does not exist at " + kafka.servers())
                .contains("start the relay first");
    }

    @Test
    void aSinkDatabaseMainCannotReachIsNotAFailure() {
        PostgresEndpoint nowhere =
                new PostgresEndpoint("jdbc:postgresql://127.0.0.1:1/ledger", "effonce_sink", "x");
        assertThat(StartupCheck.sinkDatabase(sink(nowhere))).isEmpty();
    }

    @Test
    void aKafkaThatDoesNotAnswerIsOneSentenceNamingTheOption() {
        assertThat(StartupCheck.topics("127.0.0.1:1", List.of(TOPIC), 2))
                .singleElement()
                .asString()
                .startsWith("Kafka at 127.0.0.1:1 did not answer within 2 s")
                .contains("check --kafka.bootstrap-servers")
                .contains("--startup-check false");
        assertThat(StartupCheck.topics("no-such-host.invalid:9092", List.of(TOPIC), 2))
                .singleElement()
                .asString()
                .contains("check --kafka.bootstrap-servers");
    }

    @Test
    void mainWithoutTheSinkDatabaseFailsWithOneSentenceAndNoStackTrace() {
        assertThatThrownBy(
                        () ->
                                LedgerTotalsJob.main(
                                        new String[] {"--kafka.bootstrap-servers", "127.0.0.1:1"}))
                .isInstanceOf(JobStartupException.class)
                .hasMessage("--postgres.url is required; run with --help to list the options")
                .satisfies(e -> assertThat(e.getStackTrace()).isEmpty());
    }

    private static PostgresStoreConfig sink(PostgresEndpoint db) {
        return PostgresStoreConfig.of(
                db.jdbcUrl(), db.user(), db.password(), "merchant_daily_totals");
    }
}
