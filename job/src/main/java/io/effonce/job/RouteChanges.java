package io.effonce.job;

import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.PaymentChange;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Sends dead letters to their side output (a counter per reason), drops heartbeats once they have
 * moved the watermark, and passes on only changes in a counted state: nothing else can change a
 * total, so nothing else is worth keying, deduplicating or remembering.
 */
final class RouteChanges extends ProcessFunction<LedgerRecord, PaymentChange> {

    private static final long serialVersionUID = 1L;

    private final Set<String> countedStates;
    private final OutputTag<DeadLetter> deadLetters;

    private transient MetricGroup rejected;
    private transient Map<String, Counter> rejectedByReason;
    private transient Counter heartbeats;
    private transient Counter uncounted;

    RouteChanges(Set<String> countedStates, OutputTag<DeadLetter> deadLetters) {
        this.countedStates = countedStates;
        this.deadLetters = deadLetters;
    }

    @Override
    public void open(OpenContext openContext) {
        MetricGroup group = getRuntimeContext().getMetricGroup();
        rejected = group.addGroup("deadLetters");
        rejectedByReason = new HashMap<>();
        heartbeats = group.counter("heartbeats");
        uncounted = group.counter("uncountedChanges");
    }

    @Override
    public void processElement(LedgerRecord record, Context ctx, Collector<PaymentChange> out) {
        if (record.deadLetter() != null) {
            String reason = record.deadLetter().reason();
            int colon = reason.indexOf(':');
            String code = colon < 0 ? reason : reason.substring(0, colon);
            rejectedByReason.computeIfAbsent(code, rejected::counter).inc();
            ctx.output(deadLetters, record.deadLetter());
        } else if (record.isHeartbeat()) {
            heartbeats.inc();
        } else if (countedStates.contains(record.change().state())) {
            out.collect(record.change());
        } else {
            uncounted.inc();
        }
    }
}
