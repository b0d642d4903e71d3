package io.effonce.it;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.Heartbeats;
import io.effonce.cdc.republish.RepublishCommand;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * A broker whose clock ran an hour slow stamped twenty SUCCEEDED changes: each was refused as
 * {@code event-time-ahead}, and the totals missed them. The republish command, as {@code
 * effonce_republish}, publishes them again with a clock that is right: they are counted, once; a
 * second republish changes nothing (each is a duplicate of its event id), and the dead letters it
 * cannot help — a heartbeat, a value cut at the job's size limit — are skipped and listed. A dry
 * run publishes nothing.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class DeadLettersRepublishedITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private static final String TOPIC = "republish.public.payments";
    private static final Duration SLOW = Duration.ofHours(1);
    private static final Duration TIMEOUT = MiniClusterFaults.TIMEOUT;
    private static final String PASSWORD = "republish-" + UUID.randomUUID();
    private static final int REFUSED = 20;

    private final Path dir = WorkDirs.fresh("republish");

    @Test
    void changesRefusedForASlowBrokerClockAreCountedOnceWhenPublishedAgain(
            PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        KafkaTopics.createStampedByProducers(kafka.servers(), TOPIC, 1);
        SinkTables tables = new SinkTables(db);
        JobClient job =
                PipelineJob.over(db, kafka.servers(), TOPIC, dir.resolve("checkpoints"))
                        .restarts(false)
                        .start("republish");
        new MiniClusterFaults(cluster, job.getJobID()).awaitAllTasksRunning(TIMEOUT);

        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long slow = now.minus(SLOW).toEpochMilli();
        Map<String, Long> expected = new HashMap<>();
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        records.add(change("pay_on_time", "m_on_time", 1_000, now, now.toEpochMilli(), expected));
        for (int i = 0; i < REFUSED; i++) {
            records.add(change("pay_slow_" + i, "m_slow_" + i % 4, 100 + i, now, slow, expected));
        }
        records.add(heartbeatStamped(now, slow));
        records.add(cutChangeStamped(now, slow));
        KafkaTopics.send(kafka.servers(), records);

        Map<String, Long> onTime = Map.of("m_on_time", 1_000L);
        await("the on-time change counted and " + (REFUSED + 2) + " dead letters")
                .atMost(TIMEOUT)
                .until(
                        () ->
                                totals(tables).equals(onTime)
                                        && tables.count("dead_letters") == REFUSED + 2);
        assertThat(
                        tables.number(
                                "SELECT count(*) FROM dead_letters"
                                        + " WHERE reason LIKE 'event-time-ahead%'"))
                .isEqualTo(REFUSED + 2);

        long topicSize = KafkaTopics.size(kafka.servers(), TOPIC);
        String dryRun = republish(db, kafka, "--reason", "event-time-ahead", "--dry-run");
        assertThat(dryRun)
                .contains("Would publish " + REFUSED + " of " + (REFUSED + 2))
                .contains("skipped: a heartbeat")
                .contains("skipped: not whole JSON");
        assertThat(KafkaTopics.size(kafka.servers(), TOPIC)).isEqualTo(topicSize);

        String first = republish(db, kafka, "--reason", "event-time-ahead");
        assertThat(first).contains("Published " + REFUSED + " of " + (REFUSED + 2));
        await("the republished changes counted")
                .atMost(TIMEOUT)
                .until(() -> totals(tables).equals(expected));

        // Again: every change is a duplicate of its event id. A change published after them shows
        // they were judged (one partition, in order).
        String second = republish(db, kafka, "--reason", "event-time-ahead");
        assertThat(second).contains("Published " + REFUSED + " of " + (REFUSED + 2));
        Instant later = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        KafkaTopics.send(
                kafka.servers(),
                List.of(change("pay_after", "m_after", 7, later, later.toEpochMilli(), expected)));
        await("the change after the second republish counted")
                .atMost(TIMEOUT)
                .until(() -> totals(tables).containsKey("m_after"));
        assertThat(totals(tables)).isEqualTo(expected);
        assertThat(tables.count("dead_letters")).as("no new dead letter").isEqualTo(REFUSED + 2);
        assertThat(tables.count("late_events")).isZero();
        job.cancel().get();
    }

    /**
     * Runs the command as {@code effonce_republish}, its password in a file; returns its output.
     */
    private String republish(PostgresEndpoint db, KafkaBootstrap kafka, String... selection)
            throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("ALTER ROLE effonce_republish PASSWORD '" + PASSWORD + "'");
        }
        Path password = dir.resolve("republish-password");
        Files.writeString(password, PASSWORD + "\n");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--jdbc-url",
                                db.jdbcUrl(),
                                "--password-file",
                                password.toString(),
                                "--kafka-bootstrap",
                                kafka.servers()));
        args.addAll(List.of(selection));
        StringWriter out = new StringWriter();
        CommandLine command = new CommandLine(new RepublishCommand());
        command.setOut(new PrintWriter(out, true));
        StringWriter err = new StringWriter();
        command.setErr(new PrintWriter(err, true));
        int exit = command.execute(args.toArray(String[]::new));
        assertThat(exit).as("exit; stderr: %s", err).isZero();
        return out.toString();
    }

    private static Map<String, Long> totals(SinkTables tables) {
        Map<String, Long> totals = new HashMap<>();
        tables.query(
                "SELECT merchant_id, sum(total_minor) FROM merchant_daily_totals GROUP BY 1",
                rs -> totals.put(rs.getString(1), rs.getLong(2)));
        return totals;
    }

    /**
     * A SUCCEEDED change at {@code at}, stamped {@code stamp} by the broker; counted in {@code
     * expected}.
     */
    private static ProducerRecord<byte[], byte[]> change(
            String id,
            String merchant,
            long amount,
            Instant at,
            long stamp,
            Map<String, Long> expected) {
        expected.merge(merchant, amount, Long::sum);
        return new ProducerRecord<>(
                TOPIC,
                0,
                stamp,
                bytes(id),
                bytes(schemasOff(after(id, merchant, amount, "EUR", "SUCCEEDED", at.toString()))));
    }

    private static ProducerRecord<byte[], byte[]> heartbeatStamped(Instant at, long stamp) {
        ProducerRecord<byte[], byte[]> r =
                new ProducerRecord<>(
                        TOPIC,
                        0,
                        stamp,
                        bytes(Heartbeats.KEY),
                        bytes(Heartbeats.value(at.toEpochMilli(), null)));
        r.headers().add(Heartbeats.HEADER, bytes("true"));
        return r;
    }

    /** A change longer than the job's 4,096 characters a dead letter keeps: its value is cut. */
    private static ProducerRecord<byte[], byte[]> cutChangeStamped(Instant at, long stamp) {
        String value =
                schemasOff(after("pay_long", "m_long", 5, "EUR", "SUCCEEDED", at.toString()))
                        .replace(
                                "\"fingerprint\":\"fp\"",
                                "\"fingerprint\":\"" + "f".repeat(5_000) + "\"");
        return new ProducerRecord<>(TOPIC, 0, stamp, bytes("pay_long"), bytes(value));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
