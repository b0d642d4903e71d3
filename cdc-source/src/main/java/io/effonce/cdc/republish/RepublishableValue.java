package io.effonce.cdc.republish;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What a dead letter's stored value allows: publishing it again under its payment's id (the key the
 * relay gives a change, so that on the relay's own topic it joins its payment's partition; a Kafka
 * Connect topic's JSON keys hash elsewhere, which the job's dedup by event id does not mind), or a
 * reason not to. Only a whole change envelope can be counted; a heartbeat carries no payment, and a
 * value that is not whole JSON (cut at the job's size limit, or malformed) would be a dead letter
 * again.
 *
 * @param paymentId the key to publish under; null when skipped
 * @param skipped why it is not published; null when it is
 */
record RepublishableValue(String paymentId, String skipped) {

    private static final ObjectMapper JSON = new ObjectMapper();

    static RepublishableValue of(String rawValue) {
        if (rawValue == null) {
            return skip("no value (a tombstone)");
        }
        JsonNode root;
        try {
            root = JSON.readTree(rawValue);
        } catch (JsonProcessingException e) {
            return skip("not whole JSON (cut at the job's size limit, or malformed)");
        }
        if (root == null || !root.isObject()) {
            return skip("not a JSON object");
        }
        if (root.path("heartbeat").asBoolean(false)) {
            return skip("a heartbeat (no payment in it)");
        }
        JsonNode envelope = root.has("payload") ? root.get("payload") : root;
        JsonNode paymentId = envelope.path("after").path("payment_id");
        if (!paymentId.isTextual() || paymentId.asText().isEmpty()) {
            return skip("no after.payment_id (it would be a dead letter again)");
        }
        return new RepublishableValue(paymentId.asText(), null);
    }

    private static RepublishableValue skip(String why) {
        return new RepublishableValue(null, why);
    }

    boolean isPublished() {
        return skipped == null;
    }
}
