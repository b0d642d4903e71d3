package io.effonce.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
        String against,
        Instant start) {

    /** Whether a second build of the job takes the SQL peers' place ({@code --against}). */
    boolean comparesBuilds() {
        return against != null;
    }

    static final String USAGE =
            "ThroughputBenchmark [--records 1000000] [--rounds 3] [--partitions 4]"
                    + " [--merchants 10000] [--zipf 1.1] [--days 3] [--duplicates 0.1]"
                    + " [--parallelism 2] [--checkpoint-interval-ms 10000] [--heap 1g] [--seed 42]"
                    + " [--jvm-option OPTION]... ({run} in OPTION becomes sql-1, sql-minibatch-1, effonce-1, ...)"
                    + " [--against CLASSPATH] (another build of the job, e.g. its job/target/classes:"
                    + " each round runs it and this build instead of the SQL peers)";

    static BenchOptions parse(String[] args) {
        int records = 1_000_000;
        int rounds = 3;
        int partitions = 4;
        int merchants = 10_000;
        double zipf = 1.1;
        int days = 3;
        double duplicates = 0.1;
        int parallelism = 2;
        long checkpointMs = 10_000;
        String heap = "1g";
        long seed = 42;
        List<String> jvmOptions = new ArrayList<>();
        String against = null;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value; usage: " + USAGE);
            }
            String v = args[++i];
            switch (flag) {
                case "--records" -> records = Integer.parseInt(v);
                case "--rounds" -> rounds = Integer.parseInt(v);
                case "--partitions" -> partitions = Integer.parseInt(v);
                case "--merchants" -> merchants = Integer.parseInt(v);
                case "--zipf" -> zipf = Double.parseDouble(v);
                case "--days" -> days = Integer.parseInt(v);
                case "--duplicates" -> duplicates = Double.parseDouble(v);
                case "--parallelism" -> parallelism = Integer.parseInt(v);
                case "--checkpoint-interval-ms" -> checkpointMs = Long.parseLong(v);
                case "--heap" -> heap = v;
                case "--seed" -> seed = Long.parseLong(v);
                case "--jvm-option" -> jvmOptions.add(v);
                case "--against" -> against = v;
                default ->
                        throw new IllegalArgumentException(
                                "Unknown option " + flag + "; usage: " + USAGE);
            }
        }
        if (records < 10 || records > 7_000_000) {
            throw new IllegalArgumentException("--records must be between 10 and 7,000,000");
        }
        if (duplicates < 0 || duplicates > 1) {
            throw new IllegalArgumentException("--duplicates is a share between 0 and 1");
        }
        return new BenchOptions(
                records,
                rounds,
                partitions,
                merchants,
                zipf,
                days,
                duplicates,
                parallelism,
                checkpointMs,
                heap,
                seed,
                List.copyOf(jvmOptions),
                against,
                Instant.parse("2026-11-01T00:00:00Z"));
    }
}
