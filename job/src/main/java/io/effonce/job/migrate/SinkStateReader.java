package io.effonce.job.migrate;

import io.effonce.sink.SinkStateLayout;
import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import java.time.Duration;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * The sink's keyed state as a savepoint before 0.3.0 holds it, keyed and valued by the old class
 * names: each key's last value and, for {@code sink.retired-retention}, its retained final value
 * and tombstone (those still within their time to live).
 */
final class SinkStateReader extends KeyedStateReaderFunction<MerchantDayKey, SinkStateEntry> {

    private static final long serialVersionUID = 1L;

    private final Duration retention;

    private transient ValueState<DailyTotal> last;
    private transient ValueState<DailyTotal> retired;
    private transient ValueState<Boolean> deleted;
    private transient LongCounter keys;

    SinkStateReader(Duration retention) {
        this.retention = retention;
    }

    @Override
    public void open(OpenContext context) {
        TypeInformation<DailyTotal> type = TypeInformation.of(DailyTotal.class);
        last = getRuntimeContext().getState(SinkStateLayout.lastValue(type));
        if (!retention.isZero()) {
            retired = getRuntimeContext().getState(SinkStateLayout.retiredValue(type, retention));
            deleted = getRuntimeContext().getState(SinkStateLayout.deleted(retention));
        }
        keys = getRuntimeContext().getLongCounter(MigrationReport.SINK_KEYS);
    }

    @Override
    public void readKey(MerchantDayKey key, Context ctx, Collector<SinkStateEntry> out)
            throws Exception {
        SinkStateEntry e = new SinkStateEntry();
        e.merchantId = key.merchantId();
        e.day = key.day().toEpochDay();
        e.currency = key.currency();
        DailyTotal lastValue = last.value();
        if (lastValue != null) {
            e.hasLast = true;
            e.lastTotalMinor = lastValue.totalMinor();
            e.lastPayments = lastValue.payments();
        }
        DailyTotal finalValue = retired == null ? null : retired.value();
        if (finalValue != null) {
            e.hasRetired = true;
            e.retiredTotalMinor = finalValue.totalMinor();
            e.retiredPayments = finalValue.payments();
        }
        e.deleted = deleted != null && Boolean.TRUE.equals(deleted.value());
        if (e.hasLast || e.hasRetired || e.deleted) {
            keys.add(1);
            out.collect(e);
        }
    }
}
