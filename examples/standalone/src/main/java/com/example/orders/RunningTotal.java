package com.example.orders;

import io.effonce.sink.SinkChange;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/** Each customer's total so far, in checkpointed state, sent to the sink as an absolute value. */
public final class RunningTotal extends KeyedProcessFunction<Long, Order, SinkChange<Long, Long>> {

    private transient ValueState<Long> total;

    @Override
    public void open(OpenContext context) {
        total = getRuntimeContext().getState(new ValueStateDescriptor<>("total", Types.LONG));
    }

    @Override
    public void processElement(Order order, Context ctx, Collector<SinkChange<Long, Long>> out)
            throws Exception {
        long now = (total.value() == null ? 0 : total.value()) + order.amount();
        total.update(now);
        out.collect(SinkChange.upsert(order.customer(), now));
    }
}
