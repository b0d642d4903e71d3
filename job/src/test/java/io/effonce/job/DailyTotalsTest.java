package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.dedup.SettingChangedException;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.sink.SinkChange;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

class DailyTotalsTest {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final MerchantDayKey M1 = new MerchantDayKey("m1", DAY, "EUR");
    private static final long HORIZON = Duration.ofHours(2).toMillis();
    private static final DayFinality FINALITY =
            new DayFinality(ZoneOffset.UTC, Duration.ofMillis(HORIZON));
    private static final long END_OF_DAY =
            DAY.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    private static final OutputTag<DeadLetter> DEAD =
            new OutputTag<>("dead", TypeInformation.of(DeadLetter.class));

    @Test
    void eachChangeEmitsTheNewAbsoluteTotalTheSeedsM1Goes12000To15000() throws Exception {
        try (var h = harness()) {
            h.processElement(change("pay_1", 12_000, 1));
            h.processElement(change("pay_7", 3_000, 2));
            assertThat(h.extractOutputValues())
                    .containsExactly(
                            SinkChange.upsert(M1, new DailyTotal(12_000, 1)),
                            SinkChange.upsert(M1, new DailyTotal(15_000, 2)));
        }
    }

    @Test
    void theDayRetiresAtEndOfDayPlusHorizonAndItsStateIsGone() throws Exception {
        try (var h = harness()) {
            h.processElement(change("pay_1", 500, 1));
            h.processWatermark(END_OF_DAY + HORIZON - 1);
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
            h.processWatermark(END_OF_DAY + HORIZON);
            assertThat(h.extractOutputValues()).last().isEqualTo(SinkChange.retire(M1));
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void anOverflowingSumIsADeadLetterNotAWrapAround() throws Exception {
        try (var h = harness()) {
            h.processElement(change("pay_1", Long.MAX_VALUE - 10, 1));
            h.processElement(change("pay_2", 11, 2));
            assertThat(h.extractOutputValues())
                    .containsExactly(SinkChange.upsert(M1, new DailyTotal(Long.MAX_VALUE - 10, 1)));
            assertThat(h.getSideOutput(DEAD))
                    .singleElement()
                    .satisfies(
                            r -> {
                                assertThat(r.getValue().reason()).startsWith("total-overflow");
                                assertThat(r.getValue().offset()).isEqualTo(2);
                            });
        }
    }

    @Test
    void theEndOfInputWatermarkOfADrainKeepsTheDayOpen() throws Exception {
        try (var h = harness()) {
            h.processElement(change("pay_1:SUCCEEDED", 100, 1));
            h.processWatermark(Long.MAX_VALUE); // stop-with-savepoint with drain
            assertThat(h.extractOutputValues())
                    .containsExactly(SinkChange.upsert(M1, new DailyTotal(100, 1)));
            assertThat(h.numEventTimeTimers()).isEqualTo(1);
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);
        }
    }

    /** Counterfactual: Flink's own operator retires the day at the drain's MAX watermark. */
    @Test
    void withoutItTheDrainRetiresTheDay() throws Exception {
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new DailyTotals(FINALITY, DEAD)),
                        PaymentChange::dayKey,
                        TypeInformation.of(MerchantDayKey.class))) {
            h.open();
            h.processElement(change("pay_1:SUCCEEDED", 100, 1));
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).contains(SinkChange.retire(M1));
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void aRestoreWithAnotherZoneIsRefusedNamingTheOptionAndBothZones() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.processElement(change("pay_1", 500, 1));
            snapshot = h.snapshot(1L, 1L);
        }
        DayFinality berlin =
                new DayFinality(ZoneId.of("Europe/Berlin"), Duration.ofMillis(HORIZON));
        var restored =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeepStateAtEndOfInput<>(new DailyTotals(berlin, DEAD)),
                        PaymentChange::dayKey,
                        TypeInformation.of(MerchantDayKey.class));
        restored.setup();
        assertThatThrownBy(() -> restored.initializeState(snapshot))
                .isInstanceOf(SettingChangedException.class)
                .hasMessageContaining("built with totals.zone=Z")
                .hasMessageContaining("this job has totals.zone=Europe/Berlin");
        try (var same = harness(snapshot)) {
            same.processElement(change("pay_2", 300, 2));
            assertThat(same.extractOutputValues())
                    .containsExactly(SinkChange.upsert(M1, new DailyTotal(800, 2)));
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    MerchantDayKey, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
            harness() throws Exception {
        return harness(null);
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    MerchantDayKey, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
            harness(OperatorSubtaskState restoreFrom) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeepStateAtEndOfInput<>(new DailyTotals(FINALITY, DEAD)),
                        PaymentChange::dayKey,
                        TypeInformation.of(MerchantDayKey.class));
        if (restoreFrom != null) {
            h.initializeState(restoreFrom);
        }
        h.open();
        return h;
    }

    private static long at(int hour) {
        return DAY.atTime(hour, 0).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    private static StreamRecord<PaymentChange> change(String id, long amount, long offset) {
        return new StreamRecord<>(
                new PaymentChange(
                        id, "m1", amount, "EUR", "SUCCEEDED", at(10), DAY, "t", 0, offset),
                at(10));
    }
}
