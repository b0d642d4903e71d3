package io.effonce.job.decode;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.bytes;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static io.effonce.job.decode.Envelopes.schemasOn;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.JobOptions;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ChangeDecoderTest {

    private static final String PAY_7 =
            after("pay_7", "m1", 3000, "EUR", "SUCCEEDED", "2026-11-29T10:42:00.123456Z");

    private final ChangeDecoder decoder =
            new ChangeDecoder(ZoneOffset.UTC, 64, JobOptions.EVENT_TIME_TOLERANCE.defaultValue());

    @Test
    void bothEnvelopeFormsDecodeToTheSameChange() {
        LedgerRecord off =
                decoder.decode("t", 0, 1, ChangeDecoder.NO_TIMESTAMP, bytes(schemasOff(PAY_7)));
        LedgerRecord on =
                decoder.decode("t", 0, 1, ChangeDecoder.NO_TIMESTAMP, bytes(schemasOn(PAY_7)));
        assertThat(off.change())
                .isEqualTo(on.change())
                .isEqualTo(
                        new PaymentChange(
                                "pay_7",
                                "m1",
                                3000,
                                "EUR",
                                "SUCCEEDED",
                                java.time.Instant.parse("2026-11-29T10:42:00.123Z").toEpochMilli(),
                                LocalDate.of(2026, 11, 29),
                                "t",
                                0,
                                1));
        assertThat(off.change().eventId()).isEqualTo("pay_7:SUCCEEDED");
    }

    @Test
    void theDayIsTheEventTimesDateInTheConfiguredZone() {
        String lateEvening = after("p", "m1", 1, "EUR", "SUCCEEDED", "2026-11-29T23:30:00Z");
        ChangeDecoder berlin =
                new ChangeDecoder(
                        ZoneId.of("Europe/Berlin"),
                        64,
                        JobOptions.EVENT_TIME_TOLERANCE.defaultValue());
        assertThat(
                        berlin.decode(
                                        "t",
                                        0,
                                        1,
                                        ChangeDecoder.NO_TIMESTAMP,
                                        bytes(schemasOff(lateEvening)))
                                .change()
                                .day())
                .isEqualTo(LocalDate.of(2026, 11, 30));
    }

    @Test
    void aVoidRowWithoutMerchantOrAmountIsAValidChange() {
        String voidRow =
                "{\"payment_id\":\"pay_9\",\"caller_id\":\"c\",\"client_key\":\"k\","
                        + "\"merchant_id\":null,\"amount\":null,\"currency\":null,"
                        + "\"state\":\"VOID\",\"updated_at\":\"2026-11-29T10:00:00Z\"}";
        assertThat(
                        decoder.decode(
                                        "t",
                                        0,
                                        1,
                                        ChangeDecoder.NO_TIMESTAMP,
                                        bytes(schemasOff(voidRow)))
                                .change()
                                .state())
                .isEqualTo("VOID");
    }

    @Test
    void heartbeatsCarryTheirTime() {
        LedgerRecord hb =
                decoder.decode(
                        "t",
                        3,
                        9,
                        ChangeDecoder.NO_TIMESTAMP,
                        bytes("{\"heartbeat\":true,\"ts_ms\":1764410400000,\"lsn\":5}"));
        assertThat(hb.isHeartbeat()).isTrue();
        assertThat(hb.eventTime()).isEqualTo(1764410400000L);
    }

    @Test
    void debeziumsOwnHeartbeatsFromItsHeartbeatTopicCarryTheirTimeInBothForms() {
        String schemasOff = "{\"ts_ms\":1764410400000}";
        String schemasOn =
                "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\","
                        + "\"optional\":false,\"field\":\"ts_ms\"}],\"optional\":false,"
                        + "\"name\":\"io.debezium.connector.common.Heartbeat\"},"
                        + "\"payload\":{\"ts_ms\":1764410400000}}";
        for (String value : List.of(schemasOff, schemasOn)) {
            LedgerRecord hb =
                    decoder.decode(
                            "__debezium-heartbeat.ledger",
                            0,
                            4,
                            ChangeDecoder.NO_TIMESTAMP,
                            bytes(value));
            assertThat(hb.isHeartbeat()).as(value).isTrue();
            assertThat(hb.eventTime()).as(value).isEqualTo(1764410400000L);
        }
    }

    @Test
    void aTsMsBesideAnythingElseIsNoHeartbeat() {
        LedgerRecord record =
                decoder.decode(
                        "t",
                        0,
                        5,
                        ChangeDecoder.NO_TIMESTAMP,
                        bytes("{\"ts_ms\":1764410400000,\"after\":{}}"));
        assertThat(record.isHeartbeat()).isFalse();
        assertThat(record.deadLetter().reason()).startsWith("not-an-envelope");
    }

    @Test
    void aDebeziumHeartbeatAheadOfItsRecordIsADeadLetter() {
        long thirtyDaysAhead = APPENDED + 30L * 86_400_000;
        LedgerRecord hb =
                decoder.decode(
                        "__debezium-heartbeat.ledger",
                        0,
                        6,
                        APPENDED,
                        bytes("{\"ts_ms\":" + thirtyDaysAhead + "}"));
        assertThat(hb.isHeartbeat()).isFalse();
        assertThat(hb.deadLetter().reason()).startsWith("event-time-ahead: heartbeat ts_ms");
    }

    @Test
    void aTombstoneIsSkipped() {
        assertThat(decoder.decode("t", 0, 1, ChangeDecoder.NO_TIMESTAMP, null)).isNull();
    }

    static Stream<Arguments> badRecords() {
        return BadRecords.ALL.stream().map(b -> Arguments.of(b.value(), b.reason()));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badRecords")
    void eachBadRecordIsADeadLetterWithItsReason(String value, String reason) {
        LedgerRecord record =
                decoder.decode("payments", 2, 77, ChangeDecoder.NO_TIMESTAMP, bytes(value));
        assertThat(record.change()).isNull();
        assertThat(record.deadLetter().reason()).startsWith(reason);
        assertThat(record.deadLetter().topic()).isEqualTo("payments");
        assertThat(record.deadLetter().partition()).isEqualTo(2);
        assertThat(record.deadLetter().offset()).isEqualTo(77);
        assertThat(record.deadLetter().rawValue()).hasSizeLessThanOrEqualTo(64);
    }

    @Test
    void aHalfMegabyteMerchantIdIsRefusedAtTheDoorWithAShortReason() {
        LedgerRecord record =
                decoder.decode(
                        "t",
                        0,
                        1,
                        ChangeDecoder.NO_TIMESTAMP,
                        bytes(BadRecords.HUGE_MERCHANT.value()));
        assertThat(record.deadLetter().reason())
                .isEqualTo(BadRecords.HUGE_MERCHANT.reason())
                .hasSizeLessThan(200);
        assertThat(record.deadLetter().rawValue()).hasSize(64);
    }

    @Test
    void identifiersUpToTheLimitAndWithAnyPrintableCharacterAreAccepted() {
        String longest = "m".repeat(ChangeDecoder.MAX_ID_CHARS - 2) + "\uD83D\uDCB6"; // 💶
        String value =
                schemasOff(
                        after(
                                "p\u00e9\u4e2d",
                                longest,
                                1,
                                "EUR",
                                "SUCCEEDED",
                                "2026-11-29T10:00:00Z"));
        PaymentChange change =
                decoder.decode("t", 0, 1, ChangeDecoder.NO_TIMESTAMP, bytes(value)).change();
        assertThat(change.merchantId())
                .hasSize(ChangeDecoder.MAX_ID_CHARS)
                .endsWith("\uD83D\uDCB6");
        assertThat(change.paymentId()).isEqualTo("p\u00e9\u4e2d");
    }

    @Test
    void everyCountedOperationDecodesAndOnlyASnapshotReadIsASnapshotRow() {
        for (String op : new String[] {"c", "u", "r"}) {
            String value = schemasOff(PAY_7).replace("\"op\":\"u\"", "\"op\":\"" + op + "\"");
            LedgerRecord record =
                    decoder.decode("t", 0, 1, ChangeDecoder.NO_TIMESTAMP, bytes(value));
            assertThat(record.change()).as(op).isNotNull();
            assertThat(record.snapshotRow()).as(op).isEqualTo(op.equals("r"));
        }
    }

    @Test
    void theEventTimeBoundsAreInclusive() {
        for (String at : new String[] {"0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z"}) {
            String value = schemasOff(after("p", "m1", 1, "EUR", "SUCCEEDED", at));
            assertThat(decoder.decode("t", 0, 1, ChangeDecoder.NO_TIMESTAMP, bytes(value)).change())
                    .as(at)
                    .isNotNull();
        }
    }

    @Test
    void aNulCharacterInTheRawValueIsReplacedSoPostgresCanStoreIt() {
        LedgerRecord record =
                decoder.decode("t", 0, 1, ChangeDecoder.NO_TIMESTAMP, bytes("bad\u0000value"));
        assertThat(record.deadLetter().rawValue()).doesNotContain("\u0000").startsWith("bad");
    }

    /** The Kafka record's timestamp of the tests below: the broker's clock when it appended. */
    private static final long APPENDED = Instant.parse("2026-12-01T09:00:00Z").toEpochMilli();

    private LedgerRecord appendedAt(long recordTimestamp, String updatedAt) {
        String value = schemasOff(after("pay_9", "m1", 500, "EUR", "SUCCEEDED", updatedAt));
        return decoder.decode("t", 1, 5, recordTimestamp, bytes(value));
    }

    @Test
    void aChangeFromAClockFarAheadIsADeadLetterWithItsOwnReason() {
        LedgerRecord record = appendedAt(APPENDED, "9000-01-01T00:00:00Z");
        assertThat(record.change()).isNull();
        assertThat(record.eventTime()).as("moves no watermark").isEqualTo(Long.MIN_VALUE);
        assertThat(record.deadLetter().reason())
                .startsWith("event-time-ahead: updated_at 9000-01-01T00:00:00Z is PT")
                .contains("ahead of the Kafka record's timestamp 2026-12-01T09:00:00Z")
                .endsWith("(event-time.tolerance PT5M)");
        assertThat(record.deadLetter().offset()).isEqualTo(5);
    }

    @Test
    void theToleranceIsInclusiveAndAnEarlierTimeIsAlwaysAccepted() {
        assertThat(appendedAt(APPENDED, "2026-12-01T09:05:00Z").change()).isNotNull();
        assertThat(appendedAt(APPENDED, "2026-12-01T09:05:00.001Z").deadLetter().reason())
                .startsWith("event-time-ahead");
        assertThat(appendedAt(APPENDED, "2025-01-01T00:00:00Z").change()).isNotNull();
        assertThat(appendedAt(ChangeDecoder.NO_TIMESTAMP, "9000-01-01T00:00:00Z").change())
                .as("a record without a timestamp has nothing to be checked against")
                .isNotNull();
    }

    @Test
    void aHeartbeatFromARelayWhoseClockIsAheadIsADeadLetter() {
        long thirtyDaysAhead = APPENDED + 30L * 86_400_000;
        LedgerRecord hb =
                decoder.decode(
                        "t",
                        0,
                        8,
                        APPENDED,
                        bytes("{\"heartbeat\":true,\"ts_ms\":" + thirtyDaysAhead + ",\"lsn\":5}"));
        assertThat(hb.isHeartbeat()).isFalse();
        assertThat(hb.eventTime()).isEqualTo(Long.MIN_VALUE);
        assertThat(hb.deadLetter().reason())
                .startsWith("event-time-ahead: heartbeat ts_ms 2026-12-31T09:00:00Z is PT720H");
    }

    @Test
    void aWiderToleranceAcceptsWhatRunsAheadOfRealTimeOnPurpose() {
        ChangeDecoder demo = new ChangeDecoder(ZoneOffset.UTC, 64, java.time.Duration.ofDays(5));
        String value =
                schemasOff(after("pay_9", "m1", 500, "EUR", "SUCCEEDED", "2026-12-04T00:00:00Z"));
        assertThat(demo.decode("t", 0, 1, APPENDED, bytes(value)).change()).isNotNull();
    }
}
