package io.effonce.it.testutils;

import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.cluster.PrometheusPages;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The chaos cluster of one test class ({@link ClusterChaos#chaosCluster}), started once before its
 * tests and stopped after them; after each test every job is cancelled and killed TaskManagers are
 * replaced (and, highly available, JobManagers), so the next test starts on a whole cluster.
 * Registered as a static field; nested classes share the outer class's cluster.
 */
public final class ChaosClusterExtension
        implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private final Path dir;
    private final int taskManagers;
    private final boolean highAvailability;
    private final List<Integer> prometheusPorts;
    private LocalFlinkCluster cluster;
    private ClusterChaos chaos;
    private int jobManagers;

    /** A cluster of {@code taskManagers} TaskManagers whose files are under {@code dir}. */
    public ChaosClusterExtension(Path dir, int taskManagers) {
        this(dir, taskManagers, false);
    }

    private ChaosClusterExtension(
            Path dir, int taskManagers, boolean highAvailability, List<Integer> prometheusPorts) {
        this.dir = dir;
        this.taskManagers = taskManagers;
        this.highAvailability = highAvailability;
        this.prometheusPorts = List.copyOf(prometheusPorts);
    }

    private ChaosClusterExtension(Path dir, int taskManagers, boolean highAvailability) {
        this(dir, taskManagers, highAvailability, PrometheusPages.defaultPorts());
    }

    /**
     * The same cluster, its Prometheus reporters on free ports of its own: a Prometheus that
     * scrapes {@link #prometheusPorts()} sees this cluster alone, not the clusters of test classes
     * running beside it on config.yaml's range (whose alerts it would otherwise evaluate too).
     */
    public ChaosClusterExtension withPrometheusPortsOfItsOwn() {
        // Room for every process of the cluster, and for those its faults start again.
        return new ChaosClusterExtension(
                dir, taskManagers, highAvailability, PrometheusPages.freePorts(12));
    }

    /** The ports its processes' Prometheus reporters serve on. */
    public List<Integer> prometheusPorts() {
        return prometheusPorts;
    }

    /** The same, highly available: ZooKeeper, a leading and a standby JobManager. */
    public static ChaosClusterExtension highlyAvailable(Path dir, int taskManagers) {
        return new ChaosClusterExtension(dir, taskManagers, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (cluster == null) {
            ClusterSpec.Builder builder =
                    ClusterChaos.chaosCluster(dir.resolve("flink"), taskManagers)
                            .config(
                                    PrometheusPages.PORT_OPTION,
                                    PrometheusPages.asOption(prometheusPorts));
            ClusterSpec spec = (highAvailability ? builder.highAvailability() : builder).build();
            cluster = LocalFlinkCluster.start(spec);
            chaos = new ClusterChaos(cluster, taskManagers);
            jobManagers = spec.jobManagers();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        cluster.jobs().cancelAll();
        chaos.restoreTaskManagers();
        // A test that failed between a JobManager's kill and its replacement leaves one missing.
        for (int i = cluster.liveJobManagers().size(); i < jobManagers; i++) {
            cluster.startJobManager();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // A nested class's end is not the end of the class that registered the cluster.
        boolean outermost = context.getRequiredTestClass().getEnclosingClass() == null;
        if (outermost && cluster != null) {
            cluster.jobs().cancelAll();
            cluster.stop();
            cluster = null;
        }
    }

    public LocalFlinkCluster cluster() {
        return cluster;
    }

    public ClusterChaos chaos() {
        return chaos;
    }

    /** The directory of the cluster's files, for the test's own (relay offsets, job jar copies). */
    public Path dir() {
        return dir;
    }
}
