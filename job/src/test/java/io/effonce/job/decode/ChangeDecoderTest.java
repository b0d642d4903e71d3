package io.effonce.job.decode;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.bytes;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static io.effonce.job.decode.Envelopes.schemasOn;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class ChangeDecoderTest {

    private static final String PAY_7 =
            after("pay_7", "m1", 3000, "EUR", "SUCCEEDED", "2026-11-29T10:42:00.123456Z");

    private final ChangeDecoder decoder = new ChangeDecoder(ZoneOffset.UTC, 64);

    @Test
    void bothEnvelopeFormsDecodeToTheSameChange() {
        LedgerRecord off = decoder.decode("t", 0, 1, bytes(schemasOff(PAY_7)));
        LedgerRecord on = decoder.decode("t", 0, 1, bytes(schemasOn(PAY_7)));
        assertThat(off.change())
                .isEqualTo(on.change())
                .isEqualTo(
                        new PaymentChange(
                                "pay_7", "m1", 3000, "EUR", "SUCCEEDED",
                                java.time.Instant.parse("2026-11-29T10:42:00.123Z").toEpochMilli(),
                                LocalDate.of(2026, 11, 29), "t", 0, 1));
        assertThat(off.change().eventId()).isEqualTo("pay_7:SUCCEEDED");
    }

    @Test
    void theDayIsTheEventTimesDateInTheConfiguredZone() {
        String lateEvening = after("p", "m1", 1, "EUR", "SUCCEEDED", "2026-11-29T23:30:00Z");
        ChangeDecoder berlin = new ChangeDecoder(ZoneId.of("Europe/Berlin"), 64);
        assertThat(berlin.decode("t", 0, 1, bytes(schemasOff(lateEvening))).change().day())
                .isEqualTo(LocalDate.of(2026, 11, 30));
    }

    @Test
    void aVoidRowWithoutMerchantOrAmountIsAValidChange() {
        String voidRow =
                "{\"payment_id\":\"pay_9\",\"caller_id\":\"c\",\"client_key\":\"k\","
                        + "\"merchant_id\":null,\"amount\":null,\"currency\":null,"
                        + "\"state\":\"VOID\",\"updated_at\":\"2026-11-29T10:00:00Z\"}";
        assertThat(decoder.decode("t", 0, 1, bytes(schemasOff(voidRow))).change().state())
                .isEqualTo("VOID");
    }

    @Test
    void heartbeatsCarryTheirTime() {
        LedgerRecord hb =
                decoder.decode("t", 3, 9, bytes("{\"heartbeat\":true,\"ts_ms\":1764410400000,\"lsn\":5}"));
        assertThat(hb.isHeartbeat()).isTrue();
        assertThat(hb.eventTime()).isEqualTo(1764410400000L);
    }

    @Test
    void aTombstoneIsSkipped() {
        assertThat(decoder.decode("t", 0, 1, null)).isNull();
    }

    static Stream<Arguments> badRecords() {
        return Stream.of(
                Arguments.of("not json", "not-json"),
                Arguments.of("[1,2,3]", "not-an-envelope"),
                Arguments.of("{\"hello\":\"world\"}", "not-an-envelope"),
                Arguments.of(
                        "{\"before\":{},\"after\":null,\"source\":{},\"op\":\"d\",\"ts_ms\":1}",
                        "no-after: op d has no after"),
                Arguments.of(schemasOff("\"text\""), "mistyped-field: after"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"merchant_id\":\"m1\",", "")),
                        "missing-field: after.merchant_id"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"payment_id\":\"pay_7\",", "")),
                        "missing-field: after.payment_id"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"amount\":3000", "\"amount\":\"3000\"")),
                        "mistyped-field: after.amount"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"amount\":3000", "\"amount\":30.5")),
                        "mistyped-field: after.amount"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"state\":\"SUCCEEDED\"", "\"state\":\"SETTLED\"")),
                        "unknown-state: SETTLED"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"amount\":3000", "\"amount\":-5")),
                        "negative-amount: -5"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"amount\":3000", "\"amount\":9000000000000000")),
                        "absurd-amount: 9000000000000000"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"currency\":\"EUR\"", "\"currency\":\"eu\"")),
                        "bad-currency: 'eu'"),
                Arguments.of(
                        schemasOff(PAY_7.replace("2026-11-29T10:42:00.123456Z", "yesterday")),
                        "bad-time: updated_at 'yesterday'"),
                Arguments.of(
                        schemasOff(PAY_7.replace("\"state\":\"SUCCEEDED\"", "\"state\":7")),
                        "mistyped-field: after.state"),
                Arguments.of("{\"heartbeat\":true}", "mistyped-field: heartbeat ts_ms"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badRecords")
    void eachBadRecordIsADeadLetterWithItsReason(String value, String reason) {
        LedgerRecord record = decoder.decode("payments", 2, 77, bytes(value));
        assertThat(record.change()).isNull();
        assertThat(record.deadLetter().reason()).startsWith(reason);
        assertThat(record.deadLetter().topic()).isEqualTo("payments");
        assertThat(record.deadLetter().partition()).isEqualTo(2);
        assertThat(record.deadLetter().offset()).isEqualTo(77);
        assertThat(record.deadLetter().rawValue()).hasSizeLessThanOrEqualTo(64);
    }

    @Test
    void aNulCharacterInTheRawValueIsReplacedSoPostgresCanStoreIt() {
        LedgerRecord record = decoder.decode("t", 0, 1, bytes("bad\u0000value"));
        assertThat(record.deadLetter().rawValue()).doesNotContain("\u0000").startsWith("bad");
    }
}
