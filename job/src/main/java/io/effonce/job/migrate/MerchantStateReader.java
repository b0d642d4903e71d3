package io.effonce.job.migrate;

import io.effonce.job.MerchantState;
import io.effonce.sink.store.DailyTotal;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import java.util.stream.Stream;
import javax.annotation.Nullable;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.Function;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.state.api.input.operator.StateReaderOperator;
import org.apache.flink.state.api.runtime.SavepointRuntimeContext;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

/**
 * Reads the merchant stage's keyed state as a savepoint before 0.3.0 holds it (the totals under the
 * old class name): every merchant-day holding ids or totals, in the day's namespace, which the
 * State Processor API's keyed reader functions cannot reach (they see the void namespace only). The
 * open days and the timers are not read: the bootstrap opens each day it receives and sets its
 * timer at the day's {@code finalAt}, as the stage does.
 */
final class MerchantStateReader
        extends StateReaderOperator<MerchantStateReader.NoFunction, String, Long, MigratedEntry> {

    private static final long serialVersionUID = 1L;

    @Nullable private final Duration stateTtl;

    private transient InternalMapState<String, Long, String, Boolean> seen;
    private transient InternalMapState<String, Long, String, DailyTotal> totals;
    private transient LongCounter totalsRead;
    private transient LongCounter idsRead;
    private transient LongCounter idsPlaced;

    MerchantStateReader(@Nullable Duration stateTtl) {
        super(new NoFunction(), Types.STRING, LongSerializer.INSTANCE);
        this.stateTtl = stateTtl;
    }

    /** The State Processor API's reader operators carry a user function; this one has none. */
    static final class NoFunction implements Function {
        private static final long serialVersionUID = 1L;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
        super.open();
        seen =
                (InternalMapState<String, Long, String, Boolean>)
                        getKeyedStateBackend()
                                .getOrCreateKeyedState(
                                        LongSerializer.INSTANCE, MerchantState.seenIds(stateTtl));
        totals =
                (InternalMapState<String, Long, String, DailyTotal>)
                        getKeyedStateBackend()
                                .getOrCreateKeyedState(
                                        LongSerializer.INSTANCE,
                                        new MapStateDescriptor<>(
                                                MerchantState.TOTALS_STATE,
                                                Types.STRING,
                                                TypeInformation.of(DailyTotal.class)));
    }

    @Override
    public CloseableIterator<Tuple2<String, Long>> getKeysAndNamespaces(SavepointRuntimeContext ctx)
            throws Exception {
        Stream<Tuple2<String, Long>> days =
                Stream.concat(
                                getKeyedStateBackend()
                                        .<Long>getKeysAndNamespaces(MerchantState.TOTALS_STATE),
                                getKeyedStateBackend()
                                        .<Long>getKeysAndNamespaces(MerchantState.SEEN_STATE))
                        .distinct();
        // Each split of the subtask opens a new reader: the counters are the subtask's.
        totalsRead = ctx.getLongCounter(MigrationReport.TOTALS);
        idsRead = ctx.getLongCounter(MigrationReport.IDS_READ);
        idsPlaced = ctx.getLongCounter(MigrationReport.IDS_PLACED);
        return CloseableIterator.adapterForIterator(days.iterator(), days::close);
    }

    @Override
    public void processElement(String merchant, Long day, Collector<MigratedEntry> out)
            throws Exception {
        totals.setCurrentNamespace(day);
        for (Map.Entry<String, DailyTotal> total : totals.entries()) {
            totalsRead.add(1);
            out.collect(
                    MigratedEntry.total(
                            merchant,
                            LocalDate.ofEpochDay(day),
                            total.getKey(),
                            total.getValue().totalMinor(),
                            total.getValue().payments()));
        }
        seen.setCurrentNamespace(day);
        for (String eventId : seen.keys()) {
            idsRead.add(1);
            idsPlaced.add(1);
            out.collect(MigratedEntry.id(merchant, eventId).inDay(day));
        }
    }
}
