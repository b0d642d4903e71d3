package io.effonce.cdc.republish;

import io.effonce.cdc.KafkaSetup;
import io.effonce.credentials.DatabaseLogin;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code republish}: publishes chosen dead letters into the stream again. */
@Command(
        name = "republish",
        mixinStandardHelpOptions = true,
        version = "effonce-cdc-source 0.1.0-SNAPSHOT",
        description = {
            "Publishes chosen rows of dead_letters again into the topic each came from, under its"
                    + " payment's key, with the time of now: for changes refused because of a"
                    + " clock that is right again (event-time-ahead from a broker whose clock ran"
                    + " slow). Each is counted once: the job derives its event id from the change,"
                    + " so a change already counted is dropped as a duplicate, and a second"
                    + " republish changes nothing. Values that are cut, not JSON, or heartbeats are"
                    + " skipped and listed. Reads dead_letters, never writes the database.",
            "Example: --jdbc-url jdbc:postgresql://db:5432/ledger --reason event-time-ahead"
                    + " --recorded-from 2026-12-02T08:00:00Z --dry-run"
        })
public final class RepublishCommand implements Callable<Integer> {

    static final String PASSWORD_ENV = "EFFONCE_REPUBLISH_PASSWORD";

    @Spec private CommandSpec spec;

    @Option(
            names = "--jdbc-url",
            required = true,
            paramLabel = "URL",
            description = "The database holding dead_letters (the job's sink database).")
    private String jdbcUrl;

    @Option(
            names = "--user",
            defaultValue = "effonce_republish",
            description = "Role to connect as (default: ${DEFAULT-VALUE}, deploy/sql/roles.sql).")
    private String user;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description =
                    "File holding the role's password (first line). Else the environment"
                            + " variable "
                            + PASSWORD_ENV
                            + ", else none.")
    private Path passwordFile;

    @Option(
            names = "--kafka-bootstrap",
            paramLabel = "HOST:PORT[,...]",
            defaultValue = "${env:EFFONCE_KAFKA_BOOTSTRAP:-127.0.0.1:9092}",
            description =
                    "Kafka bootstrap servers. [EFFONCE_KAFKA_BOOTSTRAP] Default: ${DEFAULT-VALUE}")
    private String kafkaBootstrap;

    @Option(
            names = "--kafka-property",
            paramLabel = "KEY=VALUE",
            description =
                    "Extra Kafka producer property (security, ...); repeatable. acks and"
                            + " idempotence cannot be weakened.")
    private Map<String, String> kafkaProperties = new LinkedHashMap<>();

    @Option(
            names = "--reason",
            paramLabel = "TEXT",
            description = "Dead letters whose reason starts with TEXT, e.g. event-time-ahead.")
    private String reason;

    @Option(
            names = "--recorded-from",
            paramLabel = "INSTANT",
            description = "Recorded at or after INSTANT (ISO-8601, e.g. 2026-12-02T08:00:00Z).")
    private Instant recordedFrom;

    @Option(
            names = "--recorded-to",
            paramLabel = "INSTANT",
            description = "Recorded before INSTANT.")
    private Instant recordedTo;

    @Option(names = "--topic", paramLabel = "TOPIC", description = "Read from TOPIC.")
    private String topic;

    @Option(names = "--partition", paramLabel = "N", description = "Read from partition N.")
    private Integer partition;

    @Option(names = "--offset-from", paramLabel = "OFFSET", description = "At or after OFFSET.")
    private Long offsetFrom;

    @Option(names = "--offset-to", paramLabel = "OFFSET", description = "At or before OFFSET.")
    private Long offsetTo;

    @Option(names = "--all", description = "Every dead letter (no other selection given).")
    private boolean all;

    @Option(
            names = "--dry-run",
            description = "List what would be published and what skipped; publish nothing.")
    private boolean dryRun;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RepublishCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        DeadLetterSelection selection =
                new DeadLetterSelection(
                        reason, recordedFrom, recordedTo, topic, partition, offsetFrom, offsetTo);
        if (selection.isEverything() != all) {
            throw new ParameterException(
                    spec.commandLine(),
                    all
                            ? "--all takes no other selection; drop it or the others."
                            : "Choose the dead letters: --reason, --recorded-from/--recorded-to,"
                                    + " --topic, --partition, --offset-from/--offset-to, or --all.");
        }
        PrintWriter out = spec.commandLine().getOut();
        DatabaseLogin login =
                new DatabaseLogin(
                        jdbcUrl,
                        user,
                        DatabaseLogin.password(passwordFile, PASSWORD_ENV, System.getenv()));
        int[] selected = {0};
        int published;
        try (Connection connection = login.connect("republish");
                Producer<byte[], byte[]> producer =
                        new KafkaProducer<>(
                                KafkaSetup.producerConfig(
                                        kafkaBootstrap, kafkaProperties, "effonce-republish"))) {
            published =
                    new DeadLetterRepublisher(connection, producer)
                            .republish(
                                    selection,
                                    dryRun,
                                    o -> {
                                        selected[0]++;
                                        out.println(
                                                o.topic()
                                                        + "/"
                                                        + o.partition()
                                                        + "/"
                                                        + o.offset()
                                                        + " ("
                                                        + o.reason()
                                                        + "): "
                                                        + o.result());
                                    });
        }
        out.println(
                (dryRun ? "Would publish " : "Published ")
                        + published
                        + " of "
                        + selected[0]
                        + " selected dead letters; "
                        + (selected[0] - published)
                        + " skipped.");
        return 0;
    }
}
