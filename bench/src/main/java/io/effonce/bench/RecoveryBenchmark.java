package io.effonce.bench;

import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.sink.RestoreFlushPolicy;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.Files2;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.kafka.KafkaTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a TaskManager kill costs as the sink's state grows: the shaded job jar on the real
 * multi-process cluster (one JobManager, two TaskManagers, each its own JVM), first given {@code
 * --keys} merchant-days of state, then, {@code --kills} times, {@code --changed} of them written
 * after a checkpoint completed and a {@code kill -9} of a TaskManager of the job while the next
 * checkpoint is in flight. Timed from the kill until the job runs again and until the totals table
 * is exact; the restore flush's own report read from the TaskManagers' logs. Three scenarios: a
 * small state ({@code --baseline-keys}) and the large one, both with the default {@code
 * sink.restore-flush=AUTO}, and the large one with {@code FULL}. Not a test; run it by hand
 * (bench/README.md).
 */
public final class RecoveryBenchmark {

    private static final String TABLE = "merchant_daily_totals";
    private static final int TASK_MANAGERS = 2;

    /** Upper bound of each wait; a wait that takes longer has a problem worth reading about. */
    private static final Duration LIMIT = Duration.ofMinutes(20);

    private RecoveryBenchmark() {}

    /** What fails: a TaskManager, or the sink's database goes back in time. */
    private enum Fault {
        KILL,
        DATABASE_BACK
    }

    private record Scenario(String name, int keys, RestoreFlushPolicy policy, Fault fault) {
        Scenario(String name, int keys, RestoreFlushPolicy policy) {
            this(name, keys, policy, Fault.KILL);
        }
    }

    /** One fault and its recovery; the committed table is exact once a commit followed it. */
    private record Kill(
            Scenario scenario,
            int kill,
            long restoredFrom,
            int keysChanged,
            double runningSeconds,
            double exactSeconds,
            double committedExactSeconds,
            FlushLog.Flush flush) {}

    public static void main(String[] args) throws Exception {
        RecoveryOptions options = RecoveryOptions.parse(args);
        List<Scenario> all =
                List.of(
                        new Scenario(
                                "small state", options.baselineKeys(), RestoreFlushPolicy.AUTO),
                        new Scenario("large state", options.keys(), RestoreFlushPolicy.AUTO),
                        new Scenario("large state", options.keys(), RestoreFlushPolicy.FULL),
                        new Scenario(
                                "large state, sink database back 3 checkpoints",
                                options.keys(),
                                RestoreFlushPolicy.AUTO,
                                Fault.DATABASE_BACK));
        List<Scenario> scenarios =
                options.databaseBackOnly()
                        ? all.stream().filter(sc -> sc.fault() == Fault.DATABASE_BACK).toList()
                        : all;
        Path dir = Files.createTempDirectory("effonce-recovery-");
        List<Kill> kills = new ArrayList<>();
        ClusterSpec.Builder spec =
                ClusterSpec.builder(dir.resolve("flink"))
                        .taskManagers(TASK_MANAGERS)
                        .fastFailover();
        options.flinkConfig().forEach(spec::config);
        try (EmbeddedPostgres pg = EmbeddedPostgres.start();
                EmbeddedKafka kafka = EmbeddedKafka.start();
                LocalFlinkCluster cluster = LocalFlinkCluster.start(spec.build())) {
            System.out.printf(
                    "cluster: 1 JobManager, %d TaskManagers (each its own JVM), job parallelism %d,"
                            + " RocksDB, the shipped checkpointing%s; %d payments written after"
                            + " the last checkpoint before each kill%n",
                    TASK_MANAGERS,
                    options.parallelism(),
                    options.flinkConfig().isEmpty() ? "" : " with " + options.flinkConfig(),
                    options.changesPerKill());
            for (int s = 0; s < scenarios.size(); s++) {
                kills.addAll(run(scenarios.get(s), s, options, pg, kafka, cluster, dir));
            }
        } finally {
            Files2.deleteRecursively(dir);
        }
        printTable(scenarios, kills);
    }

    private static List<Kill> run(
            Scenario scenario,
            int number,
            RecoveryOptions options,
            EmbeddedPostgres pg,
            EmbeddedKafka kafka,
            LocalFlinkCluster cluster,
            Path dir)
            throws Exception {
        String topic = "recovery-" + number;
        KafkaTopics.create(kafka.bootstrapServers(), topic, options.partitions());
        PostgresEndpoint db = LocalServices.newDatabase(pg.endpoint(), "effonce_recovery");
        SchemaTool.applyAll(db);
        // Yesterday: behind every clock, so no change is ahead of its Kafka timestamp.
        LocalDate day = LocalDate.now(ZoneOffset.UTC).minusDays(1);
        RecoveryWorkload workload =
                new RecoveryWorkload(topic, scenario.keys(), day, options.seed());
        FlinkJobs jobs = cluster.jobs();
        String jobId =
                jobs.submit(
                        submission(
                                        db,
                                        kafka.bootstrapServers(),
                                        topic,
                                        scenario.policy(),
                                        options.jobJar(),
                                        dir)
                                .withParallelism(options.parallelism()));
        List<Kill> kills = new ArrayList<>();
        try (Producer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
            jobs.awaitAllTasksRunning(jobId);
            long start = System.nanoTime();
            workload.publishState(producer);
            long exact =
                    new TotalsCheck(db, TABLE, workload.expected())
                            .awaitExact("the state of " + scenario.keys() + " keys", LIMIT);
            System.out.printf(
                    "%s, restore flush %s: %,d keys in state, exact after %.1f s%n",
                    scenario.name(), scenario.policy(), scenario.keys(), (exact - start) / 1e9);
            for (int k = 1; k <= options.kills(); k++) {
                Run run = new Run(scenario, jobId, options, workload, producer, db, cluster);
                Kill kill = scenario.fault() == Fault.KILL ? kill(run, k) : databaseBack(run, k);
                kills.add(kill);
                System.out.printf(
                        "  fault %d: restored from checkpoint %d (%,d keys changed since the one"
                                + " before); running after %.1f s, exact after %.1f s, committed"
                                + " exact after %.1f s; %s%n",
                        k,
                        kill.restoredFrom(),
                        kill.keysChanged(),
                        kill.runningSeconds(),
                        kill.exactSeconds(),
                        kill.committedExactSeconds(),
                        kill.flush());
            }
        } finally {
            jobs.cancel(jobId);
            cluster.awaitAllSlotsFree(LIMIT);
        }
        return kills;
    }

    /**
     * Writes {@code changesPerKill} payments right after a checkpoint completed, waits until the
     * table shows them, then kills a TaskManager of the job during the next checkpoint (which the
     * kill fails), so the restore is from the checkpoint before those writes.
     */
    private static Kill kill(Run run, int number) throws Exception {
        String jobId = run.jobId();
        LocalFlinkCluster cluster = run.cluster();
        FlinkJobs jobs = cluster.jobs();
        jobs.awaitCheckpointAfter(jobId, cluster.rest().checkpoints(jobId).latestCompletedId());
        int changed = run.publishSlice();
        CheckpointStats before = cluster.rest().checkpoints(jobId);
        FlinkProcess victim = cluster.taskManager(jobs.taskManagersOf(jobId).iterator().next());
        FlushLog logs = FlushLog.from(cluster.logDir());
        jobs.awaitCheckpointInProgress(jobId, LIMIT);
        long killedAt = System.nanoTime();
        cluster.killTaskManager(victim.index());
        cluster.startTaskManager();
        Kill kill = recovery(run, number, changed, killedAt, before, logs);
        cluster.awaitTaskManagers(TASK_MANAGERS, LIMIT);
        return kill;
    }

    /**
     * Times the recovery from a fault at {@code faultAt}: the job restored and running, the live
     * table exact, the committed table exact.
     */
    private static Kill recovery(
            Run run, int number, int changed, long faultAt, CheckpointStats before, FlushLog logs)
            throws Exception {
        String jobId = run.jobId();
        LocalFlinkCluster cluster = run.cluster();
        RecoveryWorkload workload = run.workload();
        PostgresEndpoint db = run.db();
        CheckpointStats after =
                cluster.jobs().awaitRestoredAndRunning(jobId, before.restored(), LIMIT);
        long runningAt = System.nanoTime();
        long exactAt =
                new TotalsCheck(db, TABLE, workload.expected())
                        .awaitExact("exact totals after fault " + number, LIMIT);
        long committedAt =
                new TotalsCheck(db, TABLE + "_committed", workload.expected())
                        .awaitExact("exact committed totals after fault " + number, LIMIT);
        return new Kill(
                run.scenario(),
                number,
                after.latestRestoredId(),
                changed,
                (runningAt - faultAt) / 1e9,
                (exactAt - faultAt) / 1e9,
                (committedAt - faultAt) / 1e9,
                logs.flushSince(after.latestRestoredId()));
    }

    /**
     * Copies the sink's tables after a checkpoint completed, writes {@code changesPerKill}
     * payments, lets three more checkpoints complete, then puts the copy back (its sessions ended),
     * as a promoted asynchronous standby does. The sink notices at its next write (a barrier record
     * at the latest: within a checkpoint interval), the task fails, and the restore of the latest
     * checkpoint rewrites the live table by a full flush and the committed one by staging every
     * key: what that repair costs with the whole state in it.
     */
    private static Kill databaseBack(Run run, int number) throws Exception {
        String jobId = run.jobId();
        LocalFlinkCluster cluster = run.cluster();
        FlinkJobs jobs = cluster.jobs();
        long checkpoint =
                jobs.awaitCheckpointAfter(
                                jobId, cluster.rest().checkpoints(jobId).latestCompletedId())
                        .latestCompletedId();
        SinkDatabaseRollback copy = SinkDatabaseRollback.copy(run.db());
        int changed = run.publishSlice();
        for (int i = 0; i < 3; i++) {
            checkpoint = jobs.awaitCheckpointAfter(jobId, checkpoint).latestCompletedId();
        }
        CheckpointStats before = cluster.rest().checkpoints(jobId);
        FlushLog logs = FlushLog.from(cluster.logDir());
        copy.restore();
        long backAt = System.nanoTime(); // the database is back now: the fault's moment
        return recovery(run, number, changed, backAt, before, logs);
    }

    /** One scenario's job and what it runs on, as every fault of it needs them. */
    private record Run(
            Scenario scenario,
            String jobId,
            RecoveryOptions options,
            RecoveryWorkload workload,
            Producer<byte[], byte[]> producer,
            PostgresEndpoint db,
            LocalFlinkCluster cluster) {

        /** Publishes a slice of changes and waits until the live table shows them; how many. */
        int publishSlice() throws Exception {
            int changed = workload.publishSlice(producer, options.changesPerKill());
            new TotalsCheck(db, TABLE, workload.expected()).awaitExact("the slice written", LIMIT);
            return changed;
        }
    }

    /** The shaded job jar on {@code topic}, writing to {@code db}, as a user submits it. */
    static JobSubmission submission(
            PostgresEndpoint db,
            String kafka,
            String topic,
            RestoreFlushPolicy policy,
            Path jobJar,
            Path dir)
            throws Exception {
        Path password = Files.createTempFile(dir, "pg", ".password");
        Files.writeString(password, db.password());
        return JobSubmission.ledgerJob(
                jobJar.toAbsolutePath(),
                kafka,
                topic,
                db.jdbcUrl(),
                db.user(),
                password,
                "--kafka.group-id",
                topic,
                "--sink.restore-flush",
                policy.name());
    }

    static Producer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void printTable(List<Scenario> scenarios, List<Kill> kills) {
        System.out.println();
        System.out.println(
                "| scenario | keys in state | sink.restore-flush | flush ran | keys set by the"
                        + " flush (median) | flush ms (median) | fault → running s (min / median"
                        + " / max) | fault → exact s (min / median / max) | fault → committed exact"
                        + " s (min / median / max) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (Scenario s : scenarios) {
            List<Kill> of = kills.stream().filter(k -> k.scenario() == s).toList();
            System.out.printf(
                    "| %s | %,d | %s | %s | %,.0f | %,.0f | %s | %s | %s |%n",
                    s.name(),
                    s.keys(),
                    s.policy(),
                    String.join(", ", of.stream().map(k -> k.flush().modes()).distinct().toList()),
                    median(of, k -> k.flush().keysSet()),
                    median(of, k -> k.flush().millis()),
                    spread(of, Kill::runningSeconds),
                    spread(of, Kill::exactSeconds),
                    spread(of, Kill::committedExactSeconds));
        }
    }

    private static String spread(List<Kill> kills, ToDoubleFunction<Kill> value) {
        double[] v = kills.stream().mapToDouble(value).sorted().toArray();
        return v.length == 0
                ? "-"
                : "%.1f / %.1f / %.1f".formatted(v[0], median(v), v[v.length - 1]);
    }

    private static double median(List<Kill> kills, ToDoubleFunction<Kill> value) {
        return median(kills.stream().mapToDouble(value).sorted().toArray());
    }

    private static double median(double[] sorted) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
