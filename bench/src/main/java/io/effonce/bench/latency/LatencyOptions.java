package io.effonce.bench.latency;

import io.effonce.bench.BenchFlags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** What the freshness benchmark runs; every value has a default and a flag. */
record LatencyOptions(
        List<Double> changesPerSecond,
        int seconds,
        int warmUpSeconds,
        int stackWarmUpSeconds,
        int merchants,
        boolean versionLog,
        Map<String, String> flinkConfig,
        List<String> jobArgs,
        List<String> relayArgs) {

    @Command(
            name = "LatencyBenchmark",
            mixinStandardHelpOptions = true,
            showDefaultValues = true,
            description =
                    "Freshness: ledger commit to totals row, through the relay, Kafka, the job on"
                            + " a local multi-process cluster and the sink; one run per rate.")
    static final class Flags {
        @Option(
                names = "--rates",
                split = ",",
                description = "Changes per second, one run each, one after the other.")
        List<Double> rates = new ArrayList<>(List.of(2000.0, 2000.0, 2000.0, 500.0, 4000.0));

        @Option(names = "--seconds", description = "Length of each run.")
        int seconds = 60;

        @Option(names = "--warm-up", description = "Seconds of each run left out of its figures.")
        int warmUp = 10;

        @Option(
                names = "--stack-warm-up",
                description = "Seconds of a run 0 that warms the stack's JVMs (0: none).")
        int stackWarmUp = 40;

        @Option(names = "--merchants", description = "Merchants of the workload.")
        int merchants = 1000;

        @Option(
                names = "--version-log",
                description = "Log every version of every totals row (one more insert per write).")
        boolean versionLog;

        @Option(
                names = "--flink",
                split = ",",
                description =
                        "Flink settings over deploy/flink-conf/config.yaml, key=value (e.g."
                                + " execution.checkpointing.interval=2s); none: the shipped ones.")
        List<String> flink = new ArrayList<>();

        @Option(
                names = "--job",
                description = "Extra job arguments, space-separated ('--key value ...').")
        String job = "";

        @Option(names = "--relay", description = "Extra relay arguments ('--opt v ...').")
        String relay = "";
    }

    static LatencyOptions parse(String[] args) {
        Flags f = BenchFlags.parse(new Flags(), args);
        BenchFlags.require(
                !f.rates.isEmpty() && f.rates.stream().allMatch(r -> r > 0),
                "--rates must list one or more rates above 0, e.g. 2000,500");
        BenchFlags.require(
                f.seconds > 0 && f.warmUp >= 0 && f.warmUp < f.seconds && f.stackWarmUp >= 0,
                "--seconds must be above 0 and --warm-up between 0 and --seconds;"
                        + " --stack-warm-up 0 or more");
        BenchFlags.require(f.merchants > 0, "--merchants must be 1 or more");
        return new LatencyOptions(
                List.copyOf(f.rates),
                f.seconds,
                f.warmUp,
                f.stackWarmUp,
                f.merchants,
                f.versionLog,
                Map.copyOf(BenchFlags.flinkSettings(f.flink)),
                words(f.job),
                words(f.relay));
    }

    private static List<String> words(String text) {
        return text.isBlank() ? List.of() : List.of(text.trim().split(" +"));
    }
}
