package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.sink.PostgresStoreConfig;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
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

    /**
     * The Kafka clients' default metadata recovery rebootstraps in a loop that skips the reconnect
     * backoff against a broker that refuses connections, and each retry of a pending call adds
     * another: one admin client wrote 220,000 lines in the minute of its API timeout, measured,
     * which flooded the JobManager's log. With {@link KafkaClientDefaults} they back off.
     */
    @Test
    void aBrokerThatRefusesConnectionsIsRetriedWithBackoffNotInATightLoop() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        AtomicInteger lines = new AtomicInteger();
        AtomicInteger rebootstraps = new AtomicInteger();
        AbstractAppender counter =
                new AbstractAppender("kafka-lines", null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        lines.incrementAndGet();
                        if (event.getMessage().getFormattedMessage().contains("Rebootstrapping")) {
                            rebootstraps.incrementAndGet();
                        }
                    }
                };
        counter.start();
        LoggerConfig kafka = new LoggerConfig("org.apache.kafka", Level.INFO, false);
        kafka.addAppender(counter, Level.INFO, null);
        context.getConfiguration().addLogger("org.apache.kafka", kafka);
        context.updateLoggers();
        try {
            assertThat(StartupCheck.topics("127.0.0.1:1", List.of(TOPIC), 3)).hasSize(1);
        } finally {
            context.getConfiguration().removeLogger("org.apache.kafka");
            context.updateLoggers();
            counter.stop();
        }
        // Without the defaults: about 500 "Rebootstrapping" lines in these 3 s, more each second.
        assertThat(rebootstraps.get()).as("rebootstrap lines").isZero();
        assertThat(lines.get())
                .as("the Kafka clients' log lines in 3 s against a closed port")
                .isPositive()
                .isLessThan(1_000);
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
        return PostgresStoreConfig.builder()
                .url(db.jdbcUrl())
                .username(db.user())
                .password(db.password())
                .table("merchant_daily_totals")
                .build();
    }
}
