package io.effonce.job;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;

/**
 * The job's one configuration path: the environment's configuration (on a cluster, its {@code
 * config.yaml}, with {@code -D} settings), then the program arguments on top, read as typed options
 * and validated before the graph is built, each error naming the option and the fix.
 */
final class JobConfiguration {

    private JobConfiguration() {}

    /** {@code base} with {@code args} ({@code --key value}) on top, validated. */
    static Configuration merge(ReadableConfig base, String[] args) {
        Configuration merged = Configuration.fromMap(base.toMap());
        merged.addAll(CommandLine.parse(args));
        validate(merged);
        return merged;
    }

    /** Reads every typed option once, so a malformed value fails now, naming its key. */
    static void validate(ReadableConfig config) {
        JobOptions.REMOVED.forEach(
                (key, instead) -> {
                    if (config.toMap().containsKey(key)) {
                        throw new IllegalConfigurationException("Option " + key + " " + instead);
                    }
                });
        for (var option : CommandLine.knownOptions().values()) {
            try {
                config.getOptional(option);
            } catch (IllegalArgumentException e) {
                throw new IllegalConfigurationException(
                        "Option "
                                + option.key()
                                + " has a value that cannot be read ("
                                + e.getMessage()
                                + "); run with --help for its type and default",
                        e);
            }
        }
        String zone = config.get(JobOptions.ZONE);
        try {
            ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new IllegalConfigurationException(
                    "Option "
                            + JobOptions.ZONE.key()
                            + " is '"
                            + zone
                            + "', not a time zone; use an IANA name such as UTC or Europe/Berlin",
                    e);
        }
        List<String> topics = config.get(JobOptions.TOPIC);
        if (topics.isEmpty() || topics.stream().anyMatch(String::isBlank)) {
            throw new IllegalConfigurationException(
                    "Option "
                            + JobOptions.TOPIC.key()
                            + " is "
                            + topics
                            + "; name the relay's topic, or every shard's relay's topic separated"
                            + " by ';' (a.public.payments;b.public.payments)");
        }
        int maxParallelism = config.get(JobOptions.MAX_PARALLELISM);
        if (maxParallelism < 1 || maxParallelism > 32_768) {
            throw new IllegalConfigurationException(
                    "Option "
                            + JobOptions.MAX_PARALLELISM.key()
                            + " is "
                            + maxParallelism
                            + "; it must be between 1 and 32768 and stay fixed for the job's life");
        }
    }
}
