package io.effonce.examples.adclicks;

import io.effonce.sink.SinkChange;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by campaign and hour: counts the first clicks and emits the new count as an absolute value
 * for the sink. Writing the same count twice changes nothing; the sink's flush after a restore
 * removes what the erased run counted.
 */
final class HourlyClicks
        extends KeyedProcessFunction<CampaignHour, Click, SinkChange<CampaignHour, Long>> {

    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext context) {
        count = getRuntimeContext().getState(new ValueStateDescriptor<>("clicks", Types.LONG));
    }

    @Override
    public void processElement(
            Click click, Context ctx, Collector<SinkChange<CampaignHour, Long>> out)
            throws Exception {
        Long before = count.value();
        long now = (before == null ? 0 : before) + 1;
        count.update(now);
        out.collect(SinkChange.upsert(ctx.getCurrentKey(), now));
    }
}
