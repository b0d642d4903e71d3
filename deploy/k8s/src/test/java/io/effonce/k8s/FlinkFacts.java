package io.effonce.k8s;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.configuration.ConfigOption;

/** The configuration keys Flink 2.2 knows (current ones: a deprecated key is not accepted). */
final class FlinkFacts {

    /** Flink's option classes for what a cluster's configuration sets. */
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

    private FlinkFacts() {}

    static Set<String> options() {
        Set<String> keys = new TreeSet<>();
        for (String name : OPTION_CLASSES) {
            try {
                for (Field f : Class.forName(name).getFields()) {
                    if (Modifier.isStatic(f.getModifiers())
                            && ConfigOption.class.isAssignableFrom(f.getType())
                            && !f.isAnnotationPresent(Deprecated.class)) {
                        keys.add(((ConfigOption<?>) f.get(null)).key());
                    }
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Flink option class " + name + " not readable", e);
            }
        }
        return keys;
    }
}
