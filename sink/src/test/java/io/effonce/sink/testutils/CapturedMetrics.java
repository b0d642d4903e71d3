package io.effonce.sink.testutils;

import io.effonce.sink.internal.FlushReport;
import io.effonce.sink.internal.RestoreFlush;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.metrics.NoOpMetricRegistry;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskManagerMetricGroup;
import org.apache.flink.runtime.metrics.groups.TaskMetricGroup;

/**
 * The metrics one harness's operator registered, by name, read as a metrics reporter reads them:
 * the tests learn how a restore flush ran from the sink's own metrics, not from a getter the
 * product keeps for them.
 */
public final class CapturedMetrics extends NoOpMetricRegistry {

    private final Map<String, Metric> metrics = new ConcurrentHashMap<>();

    @Override
    public void register(Metric metric, String name, AbstractMetricGroup<?> group) {
        metrics.put(name, metric);
    }

    /** The task's metric group of an attempt, whose operators register here. */
    TaskMetricGroup taskGroup(JobID job, ExecutionAttemptID attempt) {
        return TaskManagerMetricGroup.createTaskManagerMetricGroup(
                        this, "localhost", ResourceID.generate())
                .addJob(job, "job")
                .addTask(attempt, "task");
    }

    /**
     * What the attempt's restore flush did, from {@code restoreFlushesFull}, {@code
     * restoreFlushesIncremental} and the {@code lastFlush*} gauges; {@link FlushReport#NONE} when
     * it ran none.
     */
    public FlushReport lastFlush() {
        long full = count("restoreFlushesFull");
        long incremental = count("restoreFlushesIncremental");
        if (full + incremental == 0) {
            return FlushReport.NONE;
        }
        return new FlushReport(
                full > 0 ? RestoreFlush.Mode.FULL : RestoreFlush.Mode.INCREMENTAL,
                gauge("lastFlushKeysSet"),
                gauge("lastFlushKeysDeleted"),
                gauge("lastFlushDurationMillis"));
    }

    /**
     * Whether the attempt holds its output until its first barrier ({@code awaitingFirstBarrier}).
     */
    public boolean awaitingFirstBarrier() {
        Metric m = metrics.get("awaitingFirstBarrier");
        return m != null && gauge("awaitingFirstBarrier") == 1;
    }

    private long count(String name) {
        Metric m = metrics.get(name);
        return m == null ? 0 : ((Counter) m).getCount();
    }

    private long gauge(String name) {
        return ((Number) ((Gauge<?>) metrics.get(name)).getValue()).longValue();
    }
}
