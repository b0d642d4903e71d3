package io.effonce.bench;

import java.time.Instant;

/**
 * The relay's Debezium envelope of one change of a payments row: schemas off, {@code before: null},
 * the source block of a PostgreSQL connector, as both benchmarks publish it.
 */
public final class Envelopes {

    private Envelopes() {}

    /**
     * @param change a number unique to the change in its stream, for its transaction id and LSN
     * @param created an insert (op {@code c}) or an update (op {@code u}) of the row
     */
    public static String payment(
            String paymentId,
            String callerId,
            String merchantId,
            long amount,
            String currency,
            String state,
            long atMs,
            long change,
            boolean created) {
        return "{\"before\":null,\"after\":{\"payment_id\":\""
                + paymentId
                + "\",\"caller_id\":\""
                + callerId
                + "\",\"client_key\":\"k-"
                + paymentId
                + "\",\"merchant_id\":\""
                + merchantId
                + "\",\"fingerprint\":\"fp-"
                + paymentId
                + "\",\"amount\":"
                + amount
                + ",\"currency\":\""
                + currency
                + "\",\"state\":\""
                + state
                + "\",\"psp_charge\":null,\"updated_at\":\""
                + Instant.ofEpochMilli(atMs)
                + "\"},\"source\":{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\","
                + "\"name\":\"effonce\",\"ts_ms\":"
                + atMs
                + ",\"snapshot\":\"false\",\"db\":\"ledger\",\"sequence\":null,\"schema\":"
                + "\"public\",\"table\":\"payments\",\"txId\":"
                + (1000 + change)
                + ",\"lsn\":"
                + (10_000L + 64L * change)
                + ",\"xmin\":null},\"transaction\":null,\"op\":\""
                + (created ? "c" : "u")
                + "\",\"ts_ms\":"
                + (atMs + 7)
                + "}";
    }
}
