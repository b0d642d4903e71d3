package io.effonce.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** What the recovery benchmark runs; every value has a default and a flag. */
record RecoveryOptions(
        int keys,
        int baselineKeys,
        double changed,
        int kills,
        int partitions,
        int parallelism,
        Map<String, String> flinkConfig,
        Path jobJar,
        long seed,
        boolean databaseBackOnly) {

    /** Changes written between the last checkpoint and each kill: the same in every scenario. */
    int changesPerKill() {
        return (int) Math.round(keys * changed);
    }

    @Command(
            name = "RecoveryBenchmark",
            mixinStandardHelpOptions = true,
            showDefaultValues = true,
            description =
                    "TaskManager kill to exact totals, with small and large state, the incremental"
                            + " and the full restore flush; and the sink's database going back.")
    static final class Flags {
        @Option(names = "--keys", description = "Keys of the large state (1 to 10,000,000).")
        int keys = 1_000_000;

        @Option(names = "--baseline-keys", description = "Keys of the small state.")
        int baselineKeys = 10_000;

        @Option(names = "--changed", description = "Share of the keys changed before each kill.")
        double changed = 0.01;

        @Option(names = "--kills", description = "Kills per scenario.")
        int kills = 3;

        @Option(names = "--partitions", description = "Kafka partitions.")
        int partitions = 4;

        @Option(names = "--parallelism", description = "Job parallelism.")
        int parallelism = 2;

        @Option(
                names = "--flink",
                split = ",",
                description =
                        "Flink settings over deploy/flink-conf/config.yaml, key=value (e.g."
                                + " execution.checkpointing.interval=10s); none: the shipped ones.")
        List<String> flink = new ArrayList<>();

        @Option(names = "--job-jar", description = "The job's shaded jar.")
        Path jobJar = Path.of("bench/target/job-jar/effonce-job.jar");

        @Option(names = "--seed", description = "Seed of the workload.")
        long seed = 42;

        @Option(
                names = "--database-back-only",
                description = "Run only the scenario in which the sink's database goes back.")
        boolean databaseBackOnly;
    }

    static RecoveryOptions parse(String[] args) {
        Flags f = BenchFlags.parse(new Flags(), args);
        BenchFlags.require(
                f.keys >= 1
                        && f.keys <= 10_000_000
                        && f.baselineKeys >= 1
                        && f.baselineKeys <= f.keys,
                "--keys must be between 1 and 10,000,000, --baseline-keys between 1 and --keys");
        BenchFlags.require(
                f.changed > 0 && f.changed <= 1, "--changed is a share above 0, at most 1");
        BenchFlags.require(
                f.jobJar.toFile().isFile(),
                "No job jar at "
                        + f.jobJar.toAbsolutePath()
                        + ": build with mvn -B -q -DskipTests install from the repository's"
                        + " root, run from there, or pass --job-jar");
        return new RecoveryOptions(
                f.keys,
                f.baselineKeys,
                f.changed,
                f.kills,
                f.partitions,
                f.parallelism,
                BenchFlags.flinkSettings(f.flink),
                f.jobJar,
                f.seed,
                f.databaseBackOnly);
    }
}
