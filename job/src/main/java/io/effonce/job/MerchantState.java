package io.effonce.job;

import io.effonce.dedup.Lateness;
import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;

/**
 * The keyed state of the merchant stage (uid {@link LedgerPipeline#MERCHANT_TOTALS_UID}), keyed by
 * merchant id ({@code StringSerializer}), as the stage and the layout migration register it. The
 * ids and the totals live in the namespace of the day ({@code LocalDate.toEpochDay()}, {@code
 * LongSerializer}); the merchant's open days, the index over those namespaces, in the void
 * namespace. Names and serializers are part of the savepoint format.
 */
public final class MerchantState {

    /** Event id → true, per day. */
    public static final String SEEN_STATE = "merchant-seen-ids";

    /** Currency → the day's total, per day. */
    public static final String TOTALS_STATE = "merchant-day-totals";

    /**
     * Day → true: the days whose ids the merchant still remembers, so that a copy dated on another
     * day finds its original (since 0.3.0).
     */
    public static final String OPEN_DAYS_STATE = "merchant-open-days";

    /** Event-time timers, namespace the day, at the day's {@code finalAt}. */
    public static final String TIMER_SERVICE = "merchant-day-final";

    private MerchantState() {}

    /** The remembered event ids; {@code dedup.state-ttl}, if set, as on the dedup stage's. */
    public static MapStateDescriptor<String, Boolean> seenIds(@Nullable Duration stateTtl) {
        MapStateDescriptor<String, Boolean> descriptor =
                new MapStateDescriptor<>(
                        SEEN_STATE, StringSerializer.INSTANCE, BooleanSerializer.INSTANCE);
        if (stateTtl != null) {
            descriptor.enableTimeToLive(Lateness.idsTtl(stateTtl));
        }
        return descriptor;
    }

    /** The merchant's open days. */
    public static MapStateDescriptor<Long, Boolean> openDays() {
        return new MapStateDescriptor<>(
                OPEN_DAYS_STATE, LongSerializer.INSTANCE, BooleanSerializer.INSTANCE);
    }

    /** The day's totals by currency. */
    public static MapStateDescriptor<String, DailyTotal> dayTotals(SerializerConfig serializers) {
        return new MapStateDescriptor<>(
                TOTALS_STATE,
                StringSerializer.INSTANCE,
                TypeInformation.of(DailyTotal.class).createSerializer(serializers));
    }
}
