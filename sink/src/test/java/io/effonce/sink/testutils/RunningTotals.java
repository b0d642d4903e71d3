package io.effonce.sink.testutils;

import io.effonce.sink.SinkChange;
import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/** A minimal totals operator for sink tests: adds each amount and emits the absolute total. */
public final class RunningTotals
        extends KeyedProcessFunction<
                MerchantDayKey, TestPayment, SinkChange<MerchantDayKey, DailyTotal>> {

    private transient ValueState<DailyTotal> total;

    @Override
    public void open(OpenContext openContext) {
        total = getRuntimeContext().getState(new ValueStateDescriptor<>("total", DailyTotal.class));
    }

    @Override
    public void processElement(
            TestPayment payment, Context ctx, Collector<SinkChange<MerchantDayKey, DailyTotal>> out)
            throws Exception {
        DailyTotal before = total.value();
        DailyTotal after =
                before == null
                        ? new DailyTotal(payment.amount(), 1)
                        : new DailyTotal(
                                before.totalMinor() + payment.amount(), before.payments() + 1);
        total.update(after);
        out.collect(SinkChange.upsert(ctx.getCurrentKey(), after));
    }
}
