package io.effonce.bench;

import io.effonce.job.MerchantDayRows;
import io.effonce.sink.SinkTableDdl;
import io.effonce.testing.EmbeddedKafka;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.Files2;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.kafka.KafkaTopics;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The job and its Flink SQL equivalent, as written and tuned with mini-batch, side by side on one
 * topic: each run starts one of them in a fresh JVM (a cold MiniCluster), the order rotating from
 * round to round, and is timed from the start of its JVM until its totals table equals the expected
 * totals exactly. Prints records/s per run, the ratios per round and the medians. With {@code
 * --against} the peers are two builds of the job instead: {@code effonce} (this one) and {@code
 * against}, the same job from another classpath put first. Not a test; run it by hand
 * (bench/README.md).
 */
public final class ThroughputBenchmark {

    private static final String TOPIC = "bench.public.payments";

    /** The systems of a round; see {@link BenchJob}. */
    private static final List<String> SYSTEMS =
            List.of("sql", "sql-minibatch", "effonce", "sql-effonce");

    /** The systems of a round that compares two builds of the job. */
    private static final List<String> BUILDS = List.of("effonce", "against");

    /** Upper bound of one run; a run that takes longer has a problem worth reading about. */
    private static final Duration RUN_LIMIT = Duration.ofMinutes(20);

    private ThroughputBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchOptions options = BenchOptions.parse(args);
        int cores = Runtime.getRuntime().availableProcessors();
        var busy = BusyMachine.refusal(BusyMachine.loadAverage(), cores);
        if (busy.isPresent() && !options.allowBusy()) {
            System.err.println(busy.get());
            System.exit(2);
        }
        busy.ifPresent(why -> System.out.println("measured anyway (--allow-busy): " + why));
        try (EmbeddedPostgres pg = EmbeddedPostgres.start();
                EmbeddedKafka kafka = EmbeddedKafka.start()) {
            long generate = System.nanoTime();
            ChangeStream stream = new ChangeStream(options);
            publish(kafka.bootstrapServers(), options.partitions(), stream);
            System.out.printf(
                    "input: %,d records on %d partitions (%,d payments, %,d re-sent copies),"
                            + " %,d merchants Zipf(%.2f), %d days, %,d merchant-days expected;"
                            + " generated and published in %.1f s%n",
                    stream.records(),
                    options.partitions(),
                    stream.payments(),
                    stream.copies(),
                    options.merchants(),
                    options.zipfExponent(),
                    options.days(),
                    stream.expectedTotals().size(),
                    (System.nanoTime() - generate) / 1e9);
            System.out.printf(
                    "each run: a fresh JVM (-Xmx%s), local MiniCluster, parallelism %d, RocksDB,"
                            + " exactly-once checkpoints every %d ms; timed from JVM start until"
                            + " its table equals the expected totals%n",
                    options.heap(), options.parallelism(), options.checkpointIntervalMs());
            if (!options.jobJvmOptions().isEmpty()) {
                System.out.println(
                        "this build's job runs also: " + String.join(" ", options.jobJvmOptions()));
            }

            List<String> systems = options.comparesBuilds() ? BUILDS : SYSTEMS;
            List<Map<String, Run>> rounds = new ArrayList<>();
            for (int round = 1; round <= options.rounds(); round++) {
                Map<String, Run> runs = new HashMap<>();
                // Each system takes each slot in turn: the machine's drift over a round is shared.
                for (int slot = 0; slot < systems.size(); slot++) {
                    String system = systems.get((round - 1 + slot) % systems.size());
                    runs.put(system, run(system, pg, kafka, options, stream, round));
                }
                rounds.add(runs);
                if (options.comparesBuilds()) {
                    System.out.printf(
                            "round %d: effonce / against = %.2f%n", round, ratio(runs, "against"));
                    continue;
                }
                System.out.printf(
                        "round %d: effonce / Flink SQL = %.2f, effonce / Flink SQL mini-batch ="
                                + " %.2f; Flink SQL through effonce-postgres / through JDBC = %.2f%n",
                        round,
                        ratio(runs, "sql"),
                        ratio(runs, "sql-minibatch"),
                        connectorRatio(runs));
            }
            if (options.comparesBuilds()) {
                System.out.printf(
                        "median: effonce %,.0f rec/s, against (%s) %,.0f rec/s; effonce / against"
                                + " %s (median, then the lowest and highest round)%n",
                        median(rounds, r -> r.get("effonce").recordsPerSecond()),
                        options.against(),
                        median(rounds, r -> r.get("against").recordsPerSecond()),
                        spread(rounds, r -> ratio(r, "against")).ratio());
                return;
            }
            System.out.println();
            System.out.println(
                    "| round | Flink SQL rec/s (steady) | Flink SQL mini-batch rec/s (steady) |"
                            + " effonce rec/s (steady) | Flink SQL on effonce-postgres rec/s"
                            + " (steady) | effonce / SQL | effonce / mini-batch |"
                            + " effonce-postgres / JDBC |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            for (int i = 0; i < rounds.size(); i++) {
                Map<String, Run> r = rounds.get(i);
                System.out.printf(
                        "| %d | %s | %s | %s | %s | %.2f | %.2f | %.2f |%n",
                        i + 1,
                        r.get("sql"),
                        r.get("sql-minibatch"),
                        r.get("effonce"),
                        r.get("sql-effonce"),
                        ratio(r, "sql"),
                        ratio(r, "sql-minibatch"),
                        connectorRatio(r));
            }
            System.out.printf(
                    "median: Flink SQL %,.0f rec/s, Flink SQL mini-batch %,.0f rec/s, effonce %,.0f"
                            + " rec/s, Flink SQL on effonce-postgres %,.0f rec/s; effonce / SQL"
                            + " %s, effonce / mini-batch %s, effonce-postgres / JDBC %s (each"
                            + " ratio: its median, then the lowest and highest round)%n",
                    median(rounds, r -> r.get("sql").recordsPerSecond()),
                    median(rounds, r -> r.get("sql-minibatch").recordsPerSecond()),
                    median(rounds, r -> r.get("effonce").recordsPerSecond()),
                    median(rounds, r -> r.get("sql-effonce").recordsPerSecond()),
                    spread(rounds, r -> ratio(r, "sql")).ratio(),
                    spread(rounds, r -> ratio(r, "sql-minibatch")).ratio(),
                    spread(rounds, ThroughputBenchmark::connectorRatio).ratio());
        }
    }

    private static double ratio(Map<String, Run> round, String peer) {
        return round.get("effonce").recordsPerSecond() / round.get(peer).recordsPerSecond();
    }

    /** The same SQL through the two connectors: what the flushable sink costs a SQL job. */
    private static double connectorRatio(Map<String, Run> round) {
        return round.get("sql-effonce").recordsPerSecond() / round.get("sql").recordsPerSecond();
    }

    private record Run(int records, double seconds, double steadySeconds) {
        double recordsPerSecond() {
            return records / seconds;
        }

        double steadyRecordsPerSecond() {
            return records / steadySeconds;
        }

        @Override
        public String toString() {
            return "%,.0f (%,.0f)".formatted(recordsPerSecond(), steadyRecordsPerSecond());
        }
    }

    private static Run run(
            String system,
            EmbeddedPostgres pg,
            EmbeddedKafka kafka,
            BenchOptions options,
            ChangeStream stream,
            int round)
            throws Exception {
        PostgresEndpoint db = LocalServices.newDatabase(pg.endpoint(), "effonce_bench");
        String table;
        if (BUILDS.contains(system)) {
            SchemaTool.applyAll(db);
            table = "merchant_daily_totals";
        } else if (system.equals("sql-effonce")) {
            // The connector's tables, which its option sink.create-tables would make at start.
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                SinkTableDdl.create(c, BenchJob.SQL_EFFONCE_TABLE, MerchantDayRows.MAPPING);
                c.commit();
            }
            table = BenchJob.SQL_EFFONCE_TABLE;
        } else {
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute(
                        "CREATE TABLE "
                                + BenchJob.SQL_TABLE
                                + " (merchant_id text, day date, currency char(3),"
                                + " total_minor bigint NOT NULL, payments bigint NOT NULL,"
                                + " PRIMARY KEY (merchant_id, day, currency))");
            }
            table = BenchJob.SQL_TABLE;
        }
        Path log = Files.createTempFile("effonce-bench-" + system + "-", ".log");
        // Checkpoints on disk, incremental, as deploy/flink-conf/config.yaml has them: the SQL
        // job's dedup state outgrows the JobManager's 5 MB in-memory storage at 5M records.
        Path checkpoints = Files.createTempDirectory("effonce-bench-checkpoints-");
        List<String> command =
                new ArrayList<>(
                        List.of(
                                javaCommand(),
                                "-Xmx" + options.heap(),
                                "-Dflink.execution.checkpointing.dir=" + checkpoints.toUri(),
                                "-Dflink.execution.checkpointing.incremental=true"));
        for (String option : options.jvmOptions()) {
            command.add(option.replace("{run}", system + "-" + round));
        }
        if (system.equals("effonce")) {
            for (String option : options.jobJvmOptions()) {
                command.add(option.replace("{run}", system + "-" + round));
            }
        }
        command.addAll(
                List.of(
                        "-cp",
                        system.equals("against")
                                ? options.against()
                                        + File.pathSeparator
                                        + System.getProperty("java.class.path")
                                : System.getProperty("java.class.path"),
                        BenchJob.class.getName(),
                        BUILDS.contains(system) ? "effonce" : system,
                        kafka.bootstrapServers(),
                        TOPIC,
                        db.jdbcUrl(),
                        db.user(),
                        Integer.toString(options.parallelism()),
                        Long.toString(options.checkpointIntervalMs())));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put(BenchJob.PASSWORD_ENV, db.password());
        long start = System.nanoTime();
        Process job = builder.start();
        boolean exact = false;
        try {
            TotalsCheck check = new TotalsCheck(db, table, stream.expectedTotals());
            long firstRow = -1;
            long deadline = start + RUN_LIMIT.toNanos();
            while (true) {
                TotalsCheck.Progress progress = check.progress();
                long now = System.nanoTime();
                if (firstRow < 0 && progress.rows() > 0) {
                    firstRow = now;
                }
                if (progress.sumsMatch() && check.exact()) {
                    Run run =
                            new Run(stream.records(), (now - start) / 1e9, (now - firstRow) / 1e9);
                    System.out.printf(
                            "round %d, %-14s %,d records exact after %.1f s = %,.0f rec/s"
                                    + " (first row after %.1f s; from then %,.0f rec/s; load"
                                    + " average %.2f)%n",
                            round,
                            system + ":",
                            run.records(),
                            run.seconds(),
                            run.recordsPerSecond(),
                            (firstRow - start) / 1e9,
                            run.steadyRecordsPerSecond(),
                            BusyMachine.loadAverage());
                    CpuByThread.of(job.toHandle())
                            .ifPresent(cpu -> System.out.printf("  %s%n", cpu));
                    exact = true;
                    return run;
                }
                if (!job.isAlive() || now > deadline) {
                    throw new IllegalStateException(
                            system
                                    + " did not reach the expected totals ("
                                    + progress
                                    + ") "
                                    + (job.isAlive()
                                            ? "within " + RUN_LIMIT.toMinutes() + " minutes"
                                            : "before its JVM exited with " + job.exitValue())
                                    + "; its output is in "
                                    + log);
                }
                TimeUnit.MILLISECONDS.sleep(200); // pacing of the poll of the table
            }
        } finally {
            // A polite stop first, so a flight recording asked for with --jvm-option is written.
            job.destroy();
            if (!job.waitFor(30, TimeUnit.SECONDS)) {
                job.destroyForcibly().waitFor();
            }
            Files2.deleteRecursively(checkpoints);
            if (exact) {
                Files.deleteIfExists(log); // a failed run's output stays, named in its error
            }
        }
    }

    private static void publish(String bootstrap, int partitions, ChangeStream stream)
            throws Exception {
        // As the relay creates its topic: the broker's clock stamps every record.
        KafkaTopics.create(bootstrap, TOPIC, partitions);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        try (var producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < stream.records(); i++) {
                producer.send(
                        new ProducerRecord<>(
                                TOPIC,
                                stream.key(i).getBytes(StandardCharsets.UTF_8),
                                stream.value(i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    private static String javaCommand() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    private static double median(
            List<Map<String, Run>> rounds, ToDoubleFunction<Map<String, Run>> value) {
        return spread(rounds, value).median();
    }

    private static Spread spread(
            List<Map<String, Run>> rounds, ToDoubleFunction<Map<String, Run>> value) {
        return Spread.of(rounds.stream().mapToDouble(value).toArray());
    }
}
