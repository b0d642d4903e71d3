package io.effonce.job.decode;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;

import java.util.List;

/** Fifteen kinds of malformed record, each with the reason its dead letter must start with. */
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
                            "no-after: op d has no after"),
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
                    new Bad("bad\u0000value", "not-json"));

    private BadRecords() {}
}
