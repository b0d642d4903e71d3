package io.effonce.job.decode;

import java.nio.charset.StandardCharsets;

/** Debezium JSON envelopes as the relay writes them, for tests. */
public final class Envelopes {

    private Envelopes() {}

    /** An update envelope, converter schemas off, with the given {@code after} JSON. */
    public static String schemasOff(String afterJson) {
        return "{\"before\":null,\"after\":"
                + afterJson
                + ",\"source\":{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\","
                + "\"name\":\"effonce\",\"ts_ms\":1764410400000,\"db\":\"ledger\","
                + "\"schema\":\"public\",\"table\":\"payments\",\"lsn\":123456},"
                + "\"op\":\"u\",\"ts_ms\":1764410400123}";
    }

    /** The same change with converter schemas on: the envelope inside {@code payload}. */
    public static String schemasOn(String afterJson) {
        return "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"name\":"
                + "\"effonce.public.payments.Envelope\"},\"payload\":"
                + schemasOff(afterJson)
                + "}";
    }

    /** The {@code after} of a payment row. */
    public static String after(
            String paymentId,
            String merchant,
            long amount,
            String currency,
            String state,
            String updatedAt) {
        return "{\"payment_id\":\""
                + paymentId
                + "\",\"caller_id\":\"c1\",\"client_key\":\"k-"
                + paymentId
                + "\",\"merchant_id\":\""
                + merchant
                + "\",\"fingerprint\":\"fp\",\"amount\":"
                + amount
                + ",\"currency\":\""
                + currency
                + "\",\"state\":\""
                + state
                + "\",\"psp_charge\":null,\"updated_at\":\""
                + updatedAt
                + "\"}";
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
