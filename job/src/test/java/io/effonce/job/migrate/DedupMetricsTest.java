package io.effonce.job.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** Dashboards and alerts read these metric names: passed, dropped, late, floor. */
class DedupMetricsTest {

    private static final long H = 7_200_000L;
    private static final long T = 1_000_000L;

    @Test
    void countersAndFloorGaugeAreRegisteredUnderTheirDocumentedNames() throws Exception {
        InterceptingOperatorMetricGroup metrics = new InterceptingOperatorMetricGroup();
        var task =
                new UnregisteredMetricGroups.UnregisteredTaskMetricGroup() {
                    @Override
                    public InternalOperatorMetricGroup getOrAddOperator(
                            OperatorID id, String name, Map<String, String> variables) {
                        return metrics;
                    }
                };
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        dedup.<String>createOperator(DedupHarnesses.CHANGE_TYPE),
                        Change::eventId,
                        Types.STRING,
                        new MockEnvironmentBuilder().setMetricGroup(task).build())) {
            h.open();
            Change ev7 = new Change("pay_7:SUCCEEDED", "m1", 3_000);
            h.processElement(ev7, T);
            h.processElement(ev7, T);
            h.processWatermark(T + H);
            h.processElement(ev7, T);

            assertThat(count(metrics, EventTimeDedupOperator.METRIC_PASSED)).isEqualTo(1);
            assertThat(count(metrics, EventTimeDedupOperator.METRIC_DUPLICATES_DROPPED))
                    .isEqualTo(1);
            assertThat(count(metrics, EventTimeDedupOperator.METRIC_LATE_REJECTED)).isEqualTo(1);
            assertThat(
                            ((Gauge<?>) metrics.get(EventTimeDedupOperator.METRIC_WATERMARK_FLOOR))
                                    .getValue())
                    .isEqualTo(T + H);
        }
    }

    private static long count(InterceptingOperatorMetricGroup metrics, String name) {
        return ((Counter) metrics.get(name)).getCount();
    }
}
