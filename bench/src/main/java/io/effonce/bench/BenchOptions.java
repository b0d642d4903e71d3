package io.effonce.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** What the throughput benchmark runs; every value has a default and a flag. */
record BenchOptions(
        int records,
        int rounds,
        int partitions,
        int merchants,
        double zipfExponent,
        int days,
        double duplicateShare,
        int parallelism,
        long checkpointIntervalMs,
        String heap,
        long seed,
        List<String> jvmOptions,
        List<String> jobJvmOptions,
        String against,
        boolean allowBusy,
        Instant start) {

    /** Whether a second build of the job takes the SQL peers' place ({@code --against}). */
    boolean comparesBuilds() {
        return against != null;
    }

    @Command(
            name = "ThroughputBenchmark",
            mixinStandardHelpOptions = true,
            showDefaultValues = true,
            description =
                    "The job against Flink SQL (and SQL with mini-batch) over one generated"
                            + " change stream, in rounds.")
    static final class Flags {
        @Option(names = "--records", description = "Change records (10 to 7,000,000).")
        int records = 1_000_000;

        @Option(names = "--rounds", description = "Rounds; each runs every system once.")
        int rounds = 3;

        @Option(names = "--partitions", description = "Kafka partitions of the stream.")
        int partitions = 4;

        @Option(names = "--merchants", description = "Merchants.")
        int merchants = 10_000;

        @Option(names = "--zipf", description = "Zipf exponent of the merchants' skew.")
        double zipf = 1.1;

        @Option(names = "--days", description = "Event-time days the stream spans.")
        int days = 3;

        @Option(names = "--duplicates", description = "Share of records sent twice (0 to 1).")
        double duplicates = 0.1;

        @Option(names = "--parallelism", description = "Parallelism of every system.")
        int parallelism = 2;

        @Option(names = "--checkpoint-interval-ms", description = "Checkpoint interval.")
        long checkpointIntervalMs = 10_000;

        @Option(names = "--heap", description = "Heap of each run's JVM.")
        String heap = "1g";

        @Option(names = "--seed", description = "Seed of the generated stream.")
        long seed = 42;

        @Option(
                names = "--jvm-option",
                description =
                        "An option of each run's JVM, repeatable; {run} in it becomes sql-1,"
                                + " sql-minibatch-1, effonce-1, sql-effonce-1, ...")
        List<String> jvmOptions = new ArrayList<>();

        @Option(
                names = "--job-jvm-option",
                description =
                        "An option of this build's job runs only (effonce, not against or the"
                                + " SQL peers), repeatable, after --jvm-option: e.g."
                                + " -Dflink.execution.checkpointing.interval=500ms gives the job"
                                + " the shipped checkpointing while the others keep"
                                + " --checkpoint-interval-ms.")
        List<String> jobJvmOptions = new ArrayList<>();

        @Option(
                names = "--against",
                description =
                        "Another build of the job (a class path, e.g. its job/target/classes):"
                                + " each round runs it and this build instead of the SQL peers.")
        String against;

        @Option(
                names = "--allow-busy",
                description =
                        "Run although the load average is above the number of cores (the"
                                + " figures then measure what else runs too).")
        boolean allowBusy;
    }

    static BenchOptions parse(String[] args) {
        Flags f = BenchFlags.parse(new Flags(), args);
        BenchFlags.require(
                f.records >= 10 && f.records <= 7_000_000,
                "--records must be between 10 and 7,000,000");
        BenchFlags.require(
                f.duplicates >= 0 && f.duplicates <= 1, "--duplicates is a share between 0 and 1");
        return new BenchOptions(
                f.records,
                f.rounds,
                f.partitions,
                f.merchants,
                f.zipf,
                f.days,
                f.duplicates,
                f.parallelism,
                f.checkpointIntervalMs,
                f.heap,
                f.seed,
                List.copyOf(f.jvmOptions),
                List.copyOf(f.jobJvmOptions),
                f.against,
                f.allowBusy,
                Instant.parse("2026-11-01T00:00:00Z"));
    }
}
