package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.decode.PaymentChange;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.Test;

/**
 * An event id is one event whatever day its copies carry. A row whose {@code updated_at} is
 * rewritten without a change of state — a fast clock corrected near midnight, an application that
 * bumps it on another column's update — produces the same {@code payment_id:state} on another day;
 * the merchant stage counts it once, on the day of its first accepted copy, before and after a
 * restore. (Kept per day alone, m1's 12,000 of 28 November appeared a second time on the 29th.)
 */
class MerchantStageCopiesTest {

    private static final DayFinality FINALITY =
            new DayFinality(ZoneOffset.UTC, Duration.ofHours(2));
    private static final LocalDate NOV_28 = LocalDate.of(2026, 11, 28);
    private static final LocalDate NOV_29 = LocalDate.of(2026, 11, 29);

    @Test
    void aCopyDatedOnTheNextDayIsADuplicate() throws Exception {
        try (var stage = MerchantStages.open(FINALITY, false, null)) {
            stage.processElement(succeeded("pay_1", 12_000, "2026-11-28T23:50:00Z"));
            stage.processWatermark(new Watermark(at("2026-11-28T23:55:00Z")));
            stage.processElement(succeeded("pay_1", 12_000, "2026-11-29T00:05:00Z"));
            stage.processElement(succeeded("pay_7", 3_000, "2026-11-29T00:06:00Z"));
            stage.processWatermark(new Watermark(at("2026-11-29T00:10:00Z")));

            assertThat(MerchantStages.totals(stage))
                    .containsExactlyInAnyOrderEntriesOf(
                            Map.of(m1(NOV_28), 12_000L, m1(NOV_29), 3_000L));
        }
    }

    @Test
    void aCopyDatedOnTheDayBeforeIsADuplicate() throws Exception {
        try (var stage = MerchantStages.open(FINALITY, false, null)) {
            stage.processElement(succeeded("pay_2", 5_000, "2026-11-29T00:20:00Z"));
            stage.processWatermark(new Watermark(at("2026-11-29T00:21:00Z")));
            // The clock that wrote 00:20 was fast; the correction dates the row on the 28th.
            stage.processElement(succeeded("pay_2", 5_000, "2026-11-28T23:58:00Z"));
            stage.processWatermark(new Watermark(at("2026-11-29T00:30:00Z")));

            assertThat(MerchantStages.totals(stage))
                    .containsExactlyInAnyOrderEntriesOf(Map.of(m1(NOV_29), 5_000L));
        }
    }

    @Test
    void aRestoredStageStillFindsTheCopysOriginalOnTheOtherDay() throws Exception {
        OperatorSubtaskState checkpoint;
        try (var first = MerchantStages.open(FINALITY, false, null)) {
            first.processElement(succeeded("pay_1", 12_000, "2026-11-28T23:50:00Z"));
            first.processWatermark(new Watermark(at("2026-11-28T23:55:00Z")));
            checkpoint = first.snapshot(1, 1);
        }
        try (var restored = MerchantStages.open(FINALITY, false, checkpoint)) {
            restored.processElement(succeeded("pay_1", 12_000, "2026-11-29T00:05:00Z"));
            restored.processElement(succeeded("pay_7", 3_000, "2026-11-29T00:06:00Z"));
            restored.processWatermark(new Watermark(at("2026-11-29T00:10:00Z")));

            assertThat(MerchantStages.totals(restored))
                    .containsExactlyInAnyOrderEntriesOf(Map.of(m1(NOV_29), 3_000L));
        }
    }

    /** Once the 28th is final its ids are forgotten, and a copy dated on it is late. */
    @Test
    void aCopyDatedOnADayThatIsFinalIsLate() throws Exception {
        try (var stage = MerchantStages.open(FINALITY, false, null)) {
            stage.processElement(succeeded("pay_1", 12_000, "2026-11-28T23:50:00Z"));
            stage.processWatermark(new Watermark(at("2026-11-29T02:00:00Z")));
            stage.processElement(succeeded("pay_1", 12_000, "2026-11-28T23:51:00Z"));
            stage.processWatermark(new Watermark(at("2026-11-29T02:01:00Z")));

            assertThat(MerchantStages.totals(stage))
                    .containsExactlyInAnyOrderEntriesOf(Map.of(m1(NOV_28), 12_000L));
            assertThat(stage.getSideOutput(MerchantStages.LATE)).hasSize(1);
        }
    }

    private static MerchantDayKey m1(LocalDate day) {
        return new MerchantDayKey("m1", day, "EUR");
    }

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    private static StreamRecord<PaymentChange> succeeded(String id, long amount, String at) {
        long time = at(at);
        LocalDate day = Instant.ofEpochMilli(time).atZone(ZoneOffset.UTC).toLocalDate();
        return new StreamRecord<>(
                new PaymentChange(id, "m1", amount, "EUR", "SUCCEEDED", time, day, "t", 0, 0),
                time);
    }
}
