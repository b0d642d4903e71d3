package io.effonce.testing.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The Flink MiniClusters the tests run on, in two shapes: one TaskManager holding every subtask, or
 * one TaskManager per subtask, so that a failover test can lose one subtask's process. Flink itself
 * is the caller's test dependency (provided here).
 */
public final class MiniClusters {

    private MiniClusters() {}

    /** One TaskManager with {@code slots} slots. */
    public static MiniClusterExtension oneTaskManager(int slots) {
        return oneTaskManager(slots, new Configuration());
    }

    /**
     * One TaskManager with {@code slots} slots, and {@code configuration} (e.g. a metric reporter).
     */
    public static MiniClusterExtension oneTaskManager(int slots, Configuration configuration) {
        return cluster(1, slots, configuration);
    }

    /**
     * {@code count} TaskManagers with one slot each: at parallelism {@code count}, one subtask
     * each.
     */
    public static MiniClusterExtension taskManagers(int count) {
        return cluster(count, 1, new Configuration());
    }

    private static MiniClusterExtension cluster(
            int taskManagers, int slotsEach, Configuration configuration) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setConfiguration(configuration)
                        .setNumberTaskManagers(taskManagers)
                        .setNumberSlotsPerTaskManager(slotsEach)
                        .build());
    }
}
