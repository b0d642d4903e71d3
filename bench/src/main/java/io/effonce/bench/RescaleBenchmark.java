package io.effonce.bench;

import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.sink.RestoreFlushPolicy;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.Files2;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.kafka.KafkaTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.clients.producer.Producer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Many key-group ranges at once, on the real multi-process cluster: the shaded job jar at {@code
 * --steps}' first parallelism (max parallelism 128, the job's), given {@code --keys} merchant-days
 * of state, then rescaled through savepoints to each further parallelism with changes in flight: a
 * slice is published just before each stop-with-savepoint (part of it reaches the job only after
 * the restore) and another once the rescaled job runs. After each step the totals table must equal
 * the expected totals; printed per step: the savepoint's restore, time to running and to exact, and
 * the restore flush of the new subtasks (read from the TaskManagers' logs). Not a test; run it by
 * hand (bench/README.md). Speed at parallelism 12 on two cores means nothing; exactness with many
 * ranges does.
 */
public final class RescaleBenchmark {

    private static final String TABLE = "merchant_daily_totals";
    private static final Duration LIMIT = Duration.ofMinutes(20);

    private record Step(
            int from,
            int to,
            long restoredFrom,
            double runningSeconds,
            double exactSeconds,
            FlushLog.Flush flush) {}

    private RescaleBenchmark() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        int slots = Arrays.stream(o.steps).max().orElseThrow();
        Path dir = Files.createTempDirectory("effonce-rescale-");
        List<Step> steps = new ArrayList<>();
        try (EmbeddedPostgres pg = EmbeddedPostgres.start();
                EmbeddedKafka kafka = EmbeddedKafka.start();
                LocalFlinkCluster cluster =
                        LocalFlinkCluster.start(
                                ClusterSpec.builder(dir.resolve("flink"))
                                        .taskManagers(o.taskManagers)
                                        .slotsPerTaskManager(
                                                (slots + o.taskManagers - 1) / o.taskManagers)
                                        .config(
                                                "execution.checkpointing.interval",
                                                o.checkpointIntervalMs + "ms")
                                        .build());
                Producer<byte[], byte[]> producer =
                        RecoveryBenchmark.producer(kafka.bootstrapServers())) {
            String topic = "rescale";
            KafkaTopics.create(kafka.bootstrapServers(), topic, o.partitions);
            PostgresEndpoint db = LocalServices.newDatabase(pg.endpoint(), "effonce_rescale");
            SchemaTool.applyAll(db);
            RecoveryWorkload workload =
                    new RecoveryWorkload(
                            topic, o.keys, LocalDate.now(ZoneOffset.UTC).minusDays(1), o.seed);
            FlinkJobs jobs = cluster.jobs();
            String jobId =
                    jobs.submit(
                            RecoveryBenchmark.submission(
                                            db,
                                            kafka.bootstrapServers(),
                                            topic,
                                            RestoreFlushPolicy.AUTO,
                                            o.jobJar,
                                            dir)
                                    .withParallelism(o.steps[0]));
            jobs.awaitAllTasksRunning(jobId);
            System.out.printf(
                    "cluster: 1 JobManager, %d TaskManagers of %d slots (each its own JVM); %d"
                            + " Kafka partitions; %,d keys; %,d payments before and %,d after each"
                            + " rescale%n",
                    o.taskManagers,
                    (slots + o.taskManagers - 1) / o.taskManagers,
                    o.partitions,
                    o.keys,
                    o.changesPerStep,
                    o.changesPerStep);
            workload.publishState(producer);
            check(db, workload, "the state of " + o.keys + " keys at p=" + o.steps[0]);
            for (int i = 1; i < o.steps.length; i++) {
                jobs.awaitCheckpointAfter(
                        jobId, cluster.rest().checkpoints(jobId).latestCompletedId());
                workload.publishSlice(producer, o.changesPerStep);
                FlushLog logs = FlushLog.from(cluster.logDir());
                long stoppedAt = System.nanoTime();
                jobId = jobs.rescale(jobId, o.steps[i]);
                jobs.awaitAllTasksRunning(jobId);
                long runningAt = System.nanoTime();
                CheckpointStats restored = cluster.rest().checkpoints(jobId);
                workload.publishSlice(producer, o.changesPerStep);
                long exactAt = check(db, workload, "exact totals at p=" + o.steps[i]);
                Step step =
                        new Step(
                                o.steps[i - 1],
                                o.steps[i],
                                restored.latestRestoredId(),
                                (runningAt - stoppedAt) / 1e9,
                                (exactAt - stoppedAt) / 1e9,
                                logs.flushSince(restored.latestRestoredId()));
                steps.add(step);
                System.out.printf(
                        "  p=%d → p=%d: restored from savepoint %d; running after %.1f s, exact"
                                + " after %.1f s; %s%n",
                        step.from(),
                        step.to(),
                        step.restoredFrom(),
                        step.runningSeconds(),
                        step.exactSeconds(),
                        step.flush());
            }
            jobs.cancel(jobId);
        } finally {
            Files2.deleteRecursively(dir);
        }
        System.out.println();
        System.out.println(
                "| step | restored from | running after | exact after | restore flush |");
        System.out.println("|---|---|---|---|---|");
        for (Step s : steps) {
            System.out.printf(
                    "| %d → %d | savepoint %d | %.1f s | %.1f s | %s |%n",
                    s.from(),
                    s.to(),
                    s.restoredFrom(),
                    s.runningSeconds(),
                    s.exactSeconds(),
                    s.flush());
        }
    }

    private static long check(PostgresEndpoint db, RecoveryWorkload workload, String what)
            throws Exception {
        return new TotalsCheck(db, TABLE, workload.expected()).awaitExact(what, LIMIT);
    }

    /** What the rescale benchmark runs; every value has a default and a flag. */
    @Command(
            name = "RescaleBenchmark",
            mixinStandardHelpOptions = true,
            showDefaultValues = true,
            description =
                    "The job jar rescaled through savepoints on the multi-process cluster while"
                            + " payments are published; exact after each step.")
    private static final class Options {
        @Option(
                names = "--steps",
                split = ",",
                description = "Parallelisms, in order (two or more, each 1 to 128).")
        int[] steps = {8, 3, 12};

        @Option(names = "--keys", description = "Keys of state before the first step.")
        int keys = 100_000;

        @Option(names = "--changes-per-step", description = "Payments before and after each step.")
        int changesPerStep = 10_000;

        @Option(names = "--task-managers", description = "TaskManager processes.")
        int taskManagers = 3;

        @Option(names = "--partitions", description = "Kafka partitions.")
        int partitions = 12;

        @Option(names = "--checkpoint-interval-ms", description = "Checkpoint interval.")
        long checkpointIntervalMs = 2_000;

        @Option(names = "--job-jar", description = "The job's shaded jar.")
        Path jobJar = Path.of("bench/target/job-jar/effonce-job.jar");

        @Option(names = "--seed", description = "Seed of the workload.")
        long seed = 42;

        static Options parse(String[] args) {
            Options o = BenchFlags.parse(new Options(), args);
            BenchFlags.require(
                    o.steps.length >= 2 && Arrays.stream(o.steps).allMatch(p -> p >= 1 && p <= 128),
                    "--steps needs two parallelisms or more, each 1 to 128 (the max parallelism),"
                            + " e.g. 8,3,12");
            BenchFlags.require(
                    o.jobJar.toFile().isFile(),
                    "No job jar at "
                            + o.jobJar.toAbsolutePath()
                            + ": build with mvn -B -q -DskipTests install first");
            return o;
        }
    }
}
