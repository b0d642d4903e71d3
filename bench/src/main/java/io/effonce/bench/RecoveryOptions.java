package io.effonce.bench;

import java.nio.file.Path;

/** What the recovery benchmark runs; every value has a default and a flag. */
record RecoveryOptions(
        int keys,
        int baselineKeys,
        double changed,
        int kills,
        int partitions,
        int parallelism,
        long checkpointIntervalMs,
        Path jobJar,
        long seed) {

    static final String USAGE =
            "RecoveryBenchmark [--keys 1000000] [--baseline-keys 10000] [--changed 0.01]"
                    + " [--kills 3] [--partitions 4] [--parallelism 2]"
                    + " [--checkpoint-interval-ms 10000]"
                    + " [--job-jar bench/target/job-jar/effonce-job.jar] [--seed 42]";

    /** Changes written between the last checkpoint and each kill: the same in every scenario. */
    int changesPerKill() {
        return (int) Math.round(keys * changed);
    }

    static RecoveryOptions parse(String[] args) {
        int keys = 1_000_000;
        int baselineKeys = 10_000;
        double changed = 0.01;
        int kills = 3;
        int partitions = 4;
        int parallelism = 2;
        long checkpointMs = 10_000;
        Path jobJar = Path.of("bench/target/job-jar/effonce-job.jar");
        long seed = 42;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value; usage: " + USAGE);
            }
            String v = args[++i];
            switch (flag) {
                case "--keys" -> keys = Integer.parseInt(v);
                case "--baseline-keys" -> baselineKeys = Integer.parseInt(v);
                case "--changed" -> changed = Double.parseDouble(v);
                case "--kills" -> kills = Integer.parseInt(v);
                case "--partitions" -> partitions = Integer.parseInt(v);
                case "--parallelism" -> parallelism = Integer.parseInt(v);
                case "--checkpoint-interval-ms" -> checkpointMs = Long.parseLong(v);
                case "--job-jar" -> jobJar = Path.of(v);
                case "--seed" -> seed = Long.parseLong(v);
                default ->
                        throw new IllegalArgumentException(
                                "Unknown option " + flag + "; usage: " + USAGE);
            }
        }
        if (keys < 1 || keys > 10_000_000 || baselineKeys < 1 || baselineKeys > keys) {
            throw new IllegalArgumentException(
                    "--keys must be between 1 and 10,000,000, --baseline-keys between 1 and --keys");
        }
        if (changed <= 0 || changed > 1) {
            throw new IllegalArgumentException("--changed is a share above 0, at most 1");
        }
        if (!jobJar.toFile().isFile()) {
            throw new IllegalArgumentException(
                    "No job jar at "
                            + jobJar.toAbsolutePath()
                            + ": build with mvn -B -q -DskipTests install from the repository's"
                            + " root, run from there, or pass --job-jar");
        }
        return new RecoveryOptions(
                keys,
                baselineKeys,
                changed,
                kills,
                partitions,
                parallelism,
                checkpointMs,
                jobJar,
                seed);
    }
}
