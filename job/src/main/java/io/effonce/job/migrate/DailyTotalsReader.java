package io.effonce.job.migrate;

import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * The open merchant-days of the two-stage layout's daily-totals stage, with their totals, in the
 * classes that layout named.
 */
final class DailyTotalsReader extends KeyedStateReaderFunction<MerchantDayKey, MigratedEntry> {

    private static final long serialVersionUID = 1L;

    private transient ValueState<DailyTotal> total;

    @Override
    public void open(OpenContext context) {
        total =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        TwoStageLayout.TOTAL_STATE, DailyTotal.class));
    }

    @Override
    public void readKey(MerchantDayKey key, Context ctx, Collector<MigratedEntry> out)
            throws Exception {
        DailyTotal value = total.value();
        if (value != null) {
            out.collect(
                    MigratedEntry.total(
                            key.merchantId(),
                            key.day(),
                            key.currency(),
                            value.totalMinor(),
                            value.payments()));
        }
    }
}
