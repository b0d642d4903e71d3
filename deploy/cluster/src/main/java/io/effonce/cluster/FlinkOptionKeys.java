package io.effonce.cluster;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MetricOptions;

/**
 * The configuration keys a Flink 2.3 cluster's configuration may set: every current (not
 * deprecated) option of Flink's option classes for checkpoints, state, restarts, memory, REST, high
 * availability, RocksDB and the like. Checks of config.yaml and of the Kubernetes manifests use it,
 * so a misspelled or retired key fails a test instead of being ignored by Flink.
 */
public final class FlinkOptionKeys {

    /** Option classes read; one absent from the class path (RocksDB's) is skipped. */
    private static final List<String> OPTION_CLASSES =
            List.of(
                    "org.apache.flink.configuration.CheckpointingOptions",
                    "org.apache.flink.configuration.StateBackendOptions",
                    "org.apache.flink.configuration.StateRecoveryOptions",
                    "org.apache.flink.configuration.RestartStrategyOptions",
                    "org.apache.flink.configuration.JobManagerOptions",
                    "org.apache.flink.configuration.TaskManagerOptions",
                    "org.apache.flink.configuration.HighAvailabilityOptions",
                    "org.apache.flink.configuration.RestOptions",
                    "org.apache.flink.configuration.WebOptions",
                    "org.apache.flink.configuration.HeartbeatManagerOptions",
                    "org.apache.flink.configuration.CoreOptions",
                    "org.apache.flink.configuration.ExecutionOptions",
                    "org.apache.flink.configuration.ClusterOptions",
                    "org.apache.flink.configuration.RpcOptions",
                    "org.apache.flink.configuration.PipelineOptions",
                    "org.apache.flink.state.rocksdb.RocksDBConfigurableOptions");

    /** A named metric reporter's option: {@code metrics.reporter.<name>.<option>}. */
    private static final Pattern REPORTER_KEY =
            Pattern.compile("metrics\\.reporter\\.[A-Za-z0-9_]+\\.(.+)");

    /** The Prometheus reporter's own option besides Flink's reporter options. */
    private static final String PROMETHEUS_PORT = "port";

    private FlinkOptionKeys() {}

    /**
     * Whether {@code key} is an option of a named metric reporter: one of Flink's options for every
     * reporter ({@code factory.class}, {@code interval}, ...) or the Prometheus reporter's port.
     */
    public static boolean isReporterOption(String key) {
        Matcher m = REPORTER_KEY.matcher(key);
        if (!m.matches()) {
            return false;
        }
        String option = m.group(1);
        return option.equals(PROMETHEUS_PORT)
                || Stream.of(
                                MetricOptions.REPORTER_FACTORY_CLASS,
                                MetricOptions.REPORTER_INTERVAL,
                                MetricOptions.REPORTER_SCOPE_DELIMITER,
                                MetricOptions.REPORTER_ADDITIONAL_VARIABLES,
                                MetricOptions.REPORTER_EXCLUDED_VARIABLES,
                                MetricOptions.REPORTER_INCLUDES,
                                MetricOptions.REPORTER_EXCLUDES)
                        .anyMatch(o -> o.key().equals(option));
    }

    /** Every current key of the option classes on the class path. */
    public static Set<String> current() {
        Set<String> keys = new TreeSet<>();
        for (String name : OPTION_CLASSES) {
            Class<?> options;
            try {
                options = Class.forName(name);
            } catch (ClassNotFoundException absent) {
                continue;
            }
            for (Field f : options.getFields()) {
                if (Modifier.isStatic(f.getModifiers())
                        && ConfigOption.class.isAssignableFrom(f.getType())
                        && !f.isAnnotationPresent(Deprecated.class)) {
                    try {
                        keys.add(((ConfigOption<?>) f.get(null)).key());
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException("Cannot read " + name + "." + f, e);
                    }
                }
            }
        }
        return keys;
    }
}
