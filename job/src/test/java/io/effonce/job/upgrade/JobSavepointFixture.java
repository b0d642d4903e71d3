package io.effonce.job.upgrade;

import static org.awaitility.Awaitility.await;

import io.effonce.job.JobOptions;
import io.effonce.job.LedgerPipeline;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.MerchantDayRows;
import io.effonce.job.testutils.SyntheticLedger;
import io.effonce.job.testutils.TestEndpoints;
import io.effonce.job.testutils.Topics;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.kafka.KafkaTopics;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The whole-job savepoint fixture of a release: the job run over a known change stream (phase one:
 * 200 payments of 2026-11-28, with re-deliveries) until the sink equals it, then stopped with a
 * savepoint (no drain). {@link #main} writes it to {@code
 * src/test/resources/savepoints/<release>/job/}; {@code JobSavepointCompatibilityITCase} restores
 * every release's into the current code over the same topic with phase two after it.
 *
 * <p>At the savepoint the day is open (nothing retired), so the state holds every phase-one key in
 * daily totals and the sink, the ids of the changes within the horizon of the watermark, and a
 * watermark floor late on 2026-11-28.
 */
public final class JobSavepointFixture {

    /**
     * The release whose fixture {@link #main} writes, in the job's default layout (0.1.0: the
     * two-stage layout; 0.2.0 and 0.2.1: the merchant layout; 0.2.1 is the last written by Flink
     * 2.2.1, which every later release restores on its own Flink).
     */
    public static final String RELEASE = "0.2.1";

    static final String TOPIC = "upgrade.public.payments";
    static final int PARTITIONS = 2;
    static final int PARALLELISM = 2;
    static final Duration TIMEOUT = Duration.ofMinutes(5);

    private JobSavepointFixture() {}

    /** The change stream before the savepoint: one day, nothing retired yet. */
    static SyntheticLedger phaseOne() {
        return new SyntheticLedger("a_", 200, Instant.parse("2026-11-28T00:00:00Z"), 1);
    }

    /** Payments after the savepoint, the next day. */
    static SyntheticLedger phaseTwo() {
        return new SyntheticLedger("b_", 200, Instant.parse("2026-11-29T00:00:00Z"), 1);
    }

    /**
     * Payments of phase one's day after the savepoint, 23:55 to 23:59, above the floor: they add to
     * the restored totals of the open day.
     */
    static SyntheticLedger endOfDayOne() {
        return new SyntheticLedger(
                "c_", 20, Instant.parse("2026-11-28T23:55:00Z"), Duration.ofMinutes(4));
    }

    /**
     * What the relay sends after the savepoint: re-deliveries of phase one's last ten changes
     * (their ids still remembered: dropped), its last change again with {@code updated_at}
     * rewritten to the next day (the same id: dropped), a re-delivery of its first final change
     * (below the floor: late), the end of day one, then phase two.
     */
    static List<SyntheticLedger.Change> afterTheSavepoint() {
        List<SyntheticLedger.Change> one = phaseOne().changes();
        List<SyntheticLedger.Change> records =
                new ArrayList<>(one.subList(one.size() - 10, one.size()));
        records.add(lastChangeDatedOnTheNextDay());
        records.add(firstFinalChange());
        records.addAll(endOfDayOne().changes());
        records.addAll(phaseTwo().changes());
        return records;
    }

    /** Waits until the sink's live table holds exactly {@code expected}. */
    static void awaitTotals(String what, PostgresEndpoint db, Map<MerchantDayKey, Long> expected) {
        await(what)
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () ->
                                new TotalsTable<>(db, MerchantDayRows.MAPPING)
                                        .totals()
                                        .equals(expected));
    }

    /** The totals once everything after the savepoint is counted. */
    static Map<MerchantDayKey, Long> expectedAtTheEnd() {
        Map<MerchantDayKey, Long> expected = new HashMap<>(phaseOne().expectedTotals());
        endOfDayOne().expectedTotals().forEach((k, v) -> expected.merge(k, v, Long::sum));
        phaseTwo().expectedTotals().forEach((k, v) -> expected.merge(k, v, Long::sum));
        return expected;
    }

    /**
     * Phase one's last change, a_199 SUCCEEDED at 23:52:49 on 2026-11-28, dated 00:03 the next day.
     */
    static SyntheticLedger.Change lastChangeDatedOnTheNextDay() {
        List<SyntheticLedger.Change> one = phaseOne().changes();
        SyntheticLedger.Change last = one.get(one.size() - 1);
        String value = last.value().replace("2026-11-28T23:52:49Z", "2026-11-29T00:03:00Z");
        if (!last.key().equals("a_199")
                || !value.contains("SUCCEEDED")
                || value.equals(last.value())) {
            throw new IllegalStateException(
                    "Phase one no longer ends with a_199 SUCCEEDED at 23:52:49: " + last);
        }
        return new SyntheticLedger.Change(last.key(), value);
    }

    /** Phase one's first SUCCEEDED change: a_1 at 00:07 on 2026-11-28, far below the floor. */
    static SyntheticLedger.Change firstFinalChange() {
        return phaseOne().changes().stream()
                .filter(c -> c.key().equals("a_1") && c.value().contains("SUCCEEDED"))
                .findFirst()
                .orElseThrow();
    }

    /** The job over {@link #TOPIC} and {@code db}, restored from {@code savepoint} if not null. */
    static JobClient start(PostgresEndpoint db, String kafka, Path checkpoints, Path savepoint)
            throws Exception {
        return start(db, kafka, checkpoints, savepoint, new Configuration());
    }

    /** The same, with {@code options} on top of the job's configuration. */
    static JobClient start(
            PostgresEndpoint db,
            String kafka,
            Path checkpoints,
            Path savepoint,
            Configuration options)
            throws Exception {
        Configuration cluster = new Configuration();
        cluster.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        if (savepoint != null) {
            cluster.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString());
        }
        cluster.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(cluster);
        env.setParallelism(PARALLELISM);
        env.enableCheckpointing(300);
        env.configure(options);
        Configuration job = new Configuration();
        job.set(JobOptions.KAFKA_BOOTSTRAP, kafka);
        job.set(JobOptions.TOPIC, List.of(TOPIC));
        job.addAll(options);
        LedgerPipeline.build(env, job, TestEndpoints.unbounded(job, db));
        return env.executeAsync("savepoint-fixture");
    }

    /**
     * Writes the fixture into {@code args[0]}/&lt;release&gt;/job (src/test/resources/savepoints).
     */
    public static void main(String[] args) throws Exception {
        Path target = Path.of(args[0]).resolve(RELEASE).resolve("job");
        Path work = Files.createTempDirectory("effonce-savepoint-fixture");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.start();
                EmbeddedKafka kafka = EmbeddedKafka.start()) {
            PostgresEndpoint db = postgres.endpoint();
            SchemaTool.applyAll(db);
            KafkaTopics.create(kafka.bootstrapServers(), TOPIC, PARTITIONS);
            Topics.publish(kafka.bootstrapServers(), TOPIC, phaseOne().changes());
            JobClient job = start(db, kafka.bootstrapServers(), work.resolve("checkpoints"), null);
            Map<MerchantDayKey, Long> expected = phaseOne().expectedTotals();
            awaitTotals("the sink to equal phase one", db, expected);
            String savepoint =
                    job.stopWithSavepoint(
                                    false,
                                    work.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();
            copyTree(Path.of(URI.create(savepoint)), target);
            System.out.println("Wrote the job savepoint of release " + RELEASE + " to " + target);
        }
    }

    /** Copies the directory {@code from} to {@code to}, replacing what {@code to} held. */
    static void copyTree(Path from, Path to) throws IOException {
        if (Files.exists(to)) {
            try (Stream<Path> old = Files.walk(to)) {
                for (Path p : old.sorted((a, b) -> b.compareTo(a)).toList()) {
                    Files.delete(p);
                }
            }
        }
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path dest = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(p, dest, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
