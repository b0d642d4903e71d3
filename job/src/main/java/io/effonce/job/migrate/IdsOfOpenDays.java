package io.effonce.job.migrate;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per merchant (a batch job: the timer fires once the merchant's entries are all in), places each
 * remembered event id in every open day of its merchant. The merchant layout looks an id up in the
 * day of its change; the old state does not say which day that is, but it is one of the open ones:
 * an id is remembered until {@code eventTime + horizon}, and its day stays open until {@code end of
 * day + horizon}, which is never earlier. An id whose merchant has no open day is therefore past
 * its horizon already (any copy of it is late); it is counted, not placed.
 */
final class IdsOfOpenDays extends KeyedProcessFunction<String, MigratedEntry, MigratedEntry> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(IdsOfOpenDays.class);

    private transient ListState<String> ids;
    private transient MapState<Long, Boolean> days;
    private transient LongCounter placed;
    private transient LongCounter unplaced;
    private transient LongCounter totals;

    @Override
    public void open(OpenContext context) {
        ids = getRuntimeContext().getListState(new ListStateDescriptor<>("ids", Types.STRING));
        days =
                getRuntimeContext()
                        .getMapState(new MapStateDescriptor<>("days", Types.LONG, Types.BOOLEAN));
        placed = new LongCounter();
        unplaced = new LongCounter();
        totals = new LongCounter();
        getRuntimeContext().addAccumulator(MigrationReport.TOTALS, totals);
        getRuntimeContext().addAccumulator(MigrationReport.IDS_PLACED, placed);
        getRuntimeContext().addAccumulator(MigrationReport.IDS_PAST_HORIZON, unplaced);
    }

    @Override
    public void close() {
        LOG.info(
                "{} merchant-day totals, {} ids placed in their merchant's open days, {} past their"
                        + " horizon",
                totals.getLocalValue(),
                placed.getLocalValue(),
                unplaced.getLocalValue());
    }

    @Override
    public void processElement(MigratedEntry entry, Context ctx, Collector<MigratedEntry> out)
            throws Exception {
        if (entry.isId()) {
            ids.add(entry.eventId);
        } else {
            days.put(entry.day, Boolean.TRUE);
            totals.add(1);
            out.collect(entry);
        }
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<MigratedEntry> out)
            throws Exception {
        List<Long> open = new ArrayList<>();
        days.keys().forEach(open::add);
        for (String eventId : ids.get()) {
            if (open.isEmpty()) {
                unplaced.add(1);
                continue;
            }
            placed.add(1);
            MigratedEntry id = MigratedEntry.id(ctx.getCurrentKey(), eventId);
            for (long day : open) {
                out.collect(id.inDay(day));
            }
        }
        ids.clear();
        days.clear();
    }
}
