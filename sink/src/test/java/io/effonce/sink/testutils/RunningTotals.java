package io.effonce.sink.testutils;

import io.effonce.sink.SinkChange;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/** A minimal totals operator for sink tests: adds each amount and emits the absolute total. */
public final class RunningTotals
        extends KeyedProcessFunction<TestKey, TestPayment, SinkChange<TestKey, TestTotal>> {

    private transient ValueState<TestTotal> total;

    @Override
    public void open(OpenContext openContext) {
        total = getRuntimeContext().getState(new ValueStateDescriptor<>("total", TestTotal.class));
    }

    @Override
    public void processElement(
            TestPayment payment, Context ctx, Collector<SinkChange<TestKey, TestTotal>> out)
            throws Exception {
        TestTotal before = total.value();
        TestTotal after =
                before == null
                        ? new TestTotal(payment.amount(), 1)
                        : new TestTotal(
                                before.totalMinor() + payment.amount(), before.payments() + 1);
        total.update(after);
        out.collect(SinkChange.upsert(ctx.getCurrentKey(), after));
    }
}
