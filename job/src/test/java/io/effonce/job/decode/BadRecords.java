package io.effonce.job.decode;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;

import java.util.List;

/**
 * Malformed records of every kind the decoder refuses, each with the reason its dead letter must
 * start with. The values stay under the dead letters' raw-value limit except the huge id, so a test
 * can find each row by its raw value.
 */
public final class BadRecords {

    /** A bad record and the start of its dead letter's reason. */
    public record Bad(String value, String reason) {}

    private static final String GOOD =
            after("pay_bad", "m1", 3000, "EUR", "SUCCEEDED", "2026-11-29T10:42:00.123456Z");

    public static final List<Bad> ALL =
            List.of(
                    new Bad("not json", "not-json"),
                    new Bad("[1,2,3]", "not-an-envelope"),
                    new Bad("{\"hello\":\"world\"}", "not-an-envelope"),
                    new Bad(
                            "{\"before\":{},\"after\":null,\"source\":{},\"op\":\"d\",\"ts_ms\":1}",
                            "unsupported-op: op d"),
                    new Bad(
                            "{\"before\":null,\"after\":null,\"source\":{},\"op\":\"c\",\"ts_ms\":1}",
                            "no-after: op c has no after"),
                    new Bad(
                            schemasOff(GOOD).replace("\"op\":\"u\"", "\"op\":\"t\""),
                            "unsupported-op: op t"),
                    new Bad(
                            schemasOff(GOOD).replace("\"op\":\"u\"", "\"op\":\"x\""),
                            "unknown-op: 'x'"),
                    new Bad(
                            schemasOff(GOOD).replace("\"op\":\"u\"", "\"op\":{\"a\":1}"),
                            "unknown-op: '?'"),
                    new Bad(
                            schemasOff(
                                    GOOD.replace(
                                            "\"payment_id\":\"pay_bad\"", "\"payment_id\":\"\"")),
                            "bad-identifier: after.payment_id is empty"),
                    new Bad(
                            schemasOff(
                                    GOOD.replace(
                                            "\"merchant_id\":\"m1\"",
                                            "\"merchant_id\":\"m\\u0000x\"")),
                            "bad-identifier: after.merchant_id contains control character U+0000"),
                    new Bad(
                            schemasOff(
                                    GOOD.replace(
                                            "\"merchant_id\":\"m1\"",
                                            "\"merchant_id\":\"m\\ud800x\"")),
                            "bad-identifier: after.merchant_id contains an unpaired surrogate"),
                    new Bad(
                            schemasOff(
                                    GOOD.replace(
                                            "\"merchant_id\":\"m1\"",
                                            "\"merchant_id\":\"" + "m".repeat(257) + "\"")),
                            "bad-identifier: after.merchant_id has 257 characters, more than 256"),
                    new Bad(
                            schemasOff(
                                    GOOD.replace(
                                            "2026-11-29T10:42:00.123456Z",
                                            "+12026-11-29T10:42:00Z")),
                            "bad-time: updated_at +12026-11-29T10:42:00Z is outside"),
                    new Bad(schemasOff("\"text\""), "mistyped-field: after"),
                    new Bad(
                            schemasOff(GOOD.replace("\"merchant_id\":\"m1\",", "")),
                            "missing-field: after.merchant_id"),
                    new Bad(
                            schemasOff(GOOD.replace("\"payment_id\":\"pay_bad\",", "")),
                            "missing-field: after.payment_id"),
                    new Bad(
                            schemasOff(GOOD.replace("\"amount\":3000", "\"amount\":\"3000\"")),
                            "mistyped-field: after.amount"),
                    new Bad(
                            schemasOff(GOOD.replace("\"amount\":3000", "\"amount\":30.5")),
                            "mistyped-field: after.amount"),
                    new Bad(
                            schemasOff(
                                    GOOD.replace(
                                            "\"state\":\"SUCCEEDED\"", "\"state\":\"SETTLED\"")),
                            "unknown-state: SETTLED"),
                    new Bad(
                            schemasOff(GOOD.replace("\"amount\":3000", "\"amount\":-5")),
                            "negative-amount: -5"),
                    new Bad(
                            schemasOff(
                                    GOOD.replace("\"amount\":3000", "\"amount\":9000000000000000")),
                            "absurd-amount: 9000000000000000"),
                    new Bad(
                            schemasOff(GOOD.replace("\"currency\":\"EUR\"", "\"currency\":\"eu\"")),
                            "bad-currency: 'eu'"),
                    new Bad(
                            schemasOff(GOOD.replace("2026-11-29T10:42:00.123456Z", "yesterday")),
                            "bad-time: updated_at 'yesterday'"),
                    new Bad(
                            schemasOff(GOOD.replace("\"state\":\"SUCCEEDED\"", "\"state\":7")),
                            "mistyped-field: after.state"),
                    new Bad("{\"heartbeat\":true}", "mistyped-field: heartbeat ts_ms"),
                    // Found by ChangeDecoderFuzzTest: this heartbeat decoded to a record that was
                    // neither change, dead letter nor heartbeat, and the next operator failed.
                    new Bad(
                            "{\"heartbeat\":true,\"ts_ms\":-9223372036854775808}",
                            "bad-time: heartbeat ts_ms -9223372036854775808 is outside"),
                    new Bad("bad\u0000value", "not-json"));

    /**
     * A change whose merchant id is half a megabyte long (under Kafka's default 1 MB record limit):
     * no sink index could hold it.
     */
    public static final Bad HUGE_MERCHANT =
            new Bad(
                    schemasOff(
                            GOOD.replace(
                                    "\"merchant_id\":\"m1\"",
                                    "\"merchant_id\":\"" + "m".repeat(1 << 19) + "\"")),
                    "bad-identifier: after.merchant_id has 524288 characters, more than 256");

    private BadRecords() {}
}
