package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.sink.SinkChange;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

/**
 * A restore whose checkpoint holds no state of the merchant stage — a savepoint of the two-stage
 * layout restored into the merchant layout with {@code --allowNonRestoredState} — would count the
 * open days from zero and overwrite their totals in the sink with partial ones: refused unless
 * {@code pipeline.allow-empty-merchant-stage} asks for it. Figures from the seed: m1 holds 12,000
 * when the savepoint is taken, a payment of 3,000 follows.
 */
class MerchantStageRestoreTest {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final MerchantDayKey M1 = new MerchantDayKey("m1", DAY, "EUR");
    private static final DayFinality FINALITY =
            new DayFinality(ZoneOffset.UTC, Duration.ofHours(2));
    private static final OutputTag<DeadLetter> DEAD =
            new OutputTag<>("dead", TypeInformation.of(DeadLetter.class));

    @Test
    void aRestoreOfItsOwnStateGoesOnFromTheRestoredTotal() throws Exception {
        try (var restored = MerchantStages.open(FINALITY, false, atTwelveThousand())) {
            assertThat(totalAfterThreeThousand(restored)).isEqualTo(new DailyTotal(15_000, 2));
        }
    }

    @Test
    void aRestoreWithoutTheStagesStateIsRefusedNamingTheOptionAndTheWayOut() throws Exception {
        assertThatThrownBy(
                        () ->
                                MerchantStages.open(
                                        FINALITY, false, OperatorSubtaskState.builder().build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds no state of the merchant stage (uid merchant-totals)")
                .hasMessageContaining("MigrateSavepoint")
                .hasMessageContaining("pipeline.allow-empty-merchant-stage=true");
    }

    /** The counterfactual: asked for, the stage starts empty and m1's total falls to 3,000. */
    @Test
    void allowedOnPurposeTheStageStartsFromZero() throws Exception {
        try (var empty =
                MerchantStages.open(FINALITY, true, OperatorSubtaskState.builder().build())) {
            assertThat(totalAfterThreeThousand(empty)).isEqualTo(new DailyTotal(3_000, 1));
        }
    }

    private static OperatorSubtaskState atTwelveThousand() throws Exception {
        try (var first = MerchantStages.open(FINALITY, false, null)) {
            first.processElement(change("pay_1", 12_000));
            first.processWatermark(at(11));
            return first.snapshot(1, 1);
        }
    }

    private static DailyTotal totalAfterThreeThousand(
            KeyedOneInputStreamOperatorTestHarness<
                            String, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
                    h)
            throws Exception {
        h.processElement(change("pay_7", 3_000));
        h.processWatermark(at(12));
        SinkChange<MerchantDayKey, DailyTotal> last =
                h.extractOutputValues().get(h.extractOutputValues().size() - 1);
        assertThat(last.key()).isEqualTo(M1);
        return last.value();
    }

    private static long at(int hour) {
        return DAY.atTime(hour, 0).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    private static StreamRecord<PaymentChange> change(String id, long amount) {
        return new StreamRecord<>(
                new PaymentChange(id, "m1", amount, "EUR", "SUCCEEDED", at(10), DAY, "t", 0, 0),
                at(10));
    }
}
