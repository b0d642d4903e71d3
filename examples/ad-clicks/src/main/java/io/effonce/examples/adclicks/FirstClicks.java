package io.effonce.examples.adclicks;

import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by click id: passes a click the first time its id is seen, drops the copies a retrying
 * client or an at-least-once producer adds. The ids are checkpointed state, so a copy that arrives
 * after a restore is still a copy; an id is remembered for {@code remember} after its first click.
 */
final class FirstClicks extends KeyedProcessFunction<String, Click, Click> {

    private final Duration remember;
    private transient ValueState<Boolean> seen;

    FirstClicks(Duration remember) {
        this.remember = remember;
    }

    @Override
    public void open(OpenContext context) {
        ValueStateDescriptor<Boolean> descriptor =
                new ValueStateDescriptor<>("click-seen", Types.BOOLEAN);
        descriptor.enableTimeToLive(StateTtlConfig.newBuilder(remember).build());
        seen = getRuntimeContext().getState(descriptor);
    }

    @Override
    public void processElement(Click click, Context ctx, Collector<Click> out) throws Exception {
        if (seen.value() == null) {
            seen.update(true);
            out.collect(click);
        }
    }
}
