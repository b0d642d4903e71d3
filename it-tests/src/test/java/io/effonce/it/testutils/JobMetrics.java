package io.effonce.it.testutils;

import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/** The job's own metrics on a MiniCluster, read through Flink's in-memory reporter. */
public final class JobMetrics {

    private final InMemoryReporter reporter;

    public JobMetrics(InMemoryReporter reporter) {
        this.reporter = reporter;
    }

    /**
     * The values of every subtask's gauge or counter {@code name} (e.g. {@code watermarkFloor}).
     */
    public List<Long> values(JobID job, String name) {
        return reporter.getMetricsByGroup().entrySet().stream()
                .filter(e -> job.toString().equals(e.getKey().getAllVariables().get("<job_id>")))
                .map(Map.Entry::getValue)
                .filter(m -> m.get(name) instanceof Gauge<?> || m.get(name) instanceof Counter)
                .map(metrics -> value(metrics.get(name)))
                .toList();
    }

    private static long value(Metric metric) {
        if (metric instanceof Counter c) {
            return c.getCount();
        }
        Object v = ((Gauge<?>) metric).getValue();
        return v instanceof Number n ? n.longValue() : Long.MIN_VALUE;
    }
}
