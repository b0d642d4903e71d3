package io.effonce.job;

import io.effonce.dedup.LateCopy;
import io.effonce.dedup.Lateness;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.sink.SinkChange;
import java.util.HashMap;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;

/** The merchant stage in a test harness, bundles finished by the watermarks the tests send. */
final class MerchantStages {

    private static final OutputTag<DeadLetter> DEAD =
            new OutputTag<>("dead", TypeInformation.of(DeadLetter.class));

    /** The stage's late changes. */
    static final OutputTag<LateCopy<PaymentChange>> LATE =
            LateCopy.tag(TypeInformation.of(PaymentChange.class));

    private MerchantStages() {}

    /** The stage opened on empty state ({@code restoreFrom} null) or on {@code restoreFrom}. */
    static KeyedOneInputStreamOperatorTestHarness<
                    String, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
            open(
                    DayFinality finality,
                    boolean emptyStateAllowed,
                    @Nullable OperatorSubtaskState restoreFrom)
                    throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new MerchantTotalsOperator(
                                finality,
                                new Lateness(finality.horizon(), true, null),
                                1000,
                                5,
                                LATE,
                                DEAD,
                                emptyStateAllowed),
                        PaymentChange::merchantId,
                        Types.STRING);
        try {
            if (restoreFrom == null) {
                h.initializeEmptyState();
            } else {
                h.initializeState(restoreFrom);
            }
            h.open();
            return h;
        } catch (Exception e) {
            h.close();
            throw e;
        }
    }

    /** The totals the stage has set so far, each key's last (retired keys stay). */
    static Map<MerchantDayKey, Long> totals(
            KeyedOneInputStreamOperatorTestHarness<
                            String, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
                    h) {
        Map<MerchantDayKey, Long> totals = new HashMap<>();
        for (SinkChange<MerchantDayKey, DailyTotal> change : h.extractOutputValues()) {
            if (!change.isRetire()) {
                totals.put(change.key(), change.value().totalMinor());
            }
        }
        return totals;
    }
}
