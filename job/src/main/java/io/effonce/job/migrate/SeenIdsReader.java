package io.effonce.job.migrate;

import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/** The event ids the two-stage layout's dedup stage remembers (its key: the event id). */
final class SeenIdsReader extends KeyedStateReaderFunction<String, String> {

    private static final long serialVersionUID = 1L;

    @Nullable private final Duration stateTtl;
    private transient ValueState<Boolean> seen;

    SeenIdsReader(@Nullable Duration stateTtl) {
        this.stateTtl = stateTtl;
    }

    @Override
    public void open(OpenContext context) {
        seen = getRuntimeContext().getState(EventTimeDedupOperator.seenIds(stateTtl));
    }

    @Override
    public void readKey(String eventId, Context ctx, Collector<String> out) throws Exception {
        if (seen.value() != null) {
            out.collect(eventId);
        }
    }
}
