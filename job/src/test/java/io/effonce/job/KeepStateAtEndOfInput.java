package io.effonce.job;

import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;

/**
 * A keyed process operator that forwards the end-of-input watermark ({@code Long.MAX_VALUE}, also
 * sent by a stop-with-savepoint with drain) without firing its event-time timers. Event time has
 * not really ended: a job restored from a drained savepoint must find its open days still open, not
 * retired with totals that would restart from zero.
 */
final class KeepStateAtEndOfInput<K, I, O> extends KeyedProcessOperator<K, I, O> {

    private static final long serialVersionUID = 1L;

    KeepStateAtEndOfInput(KeyedProcessFunction<K, I, O> function) {
        super(function);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() == Watermark.MAX_WATERMARK.getTimestamp()) {
            output.emitWatermark(mark);
            return;
        }
        super.processWatermark(mark);
    }
}
