package io.effonce.job.testutils;

import static io.effonce.job.decode.Envelopes.after;
import static io.effonce.job.decode.Envelopes.schemasOff;
import static io.effonce.job.decode.Envelopes.schemasOn;

import io.effonce.job.MerchantDayKey;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A deterministic change stream as the relay would publish it, with the relay's at-least-once
 * re-deliveries: each payment's PENDING change, then SUCCEEDED or FAILED a second later, across
 * {@code days} event-time days; every tenth final change is published twice. Its expected totals
 * are computed from the same list, as the ledger's oracle would.
 */
public final class SyntheticLedger {

    /** One Kafka record: key (payment id) and JSON value. */
    public record Change(String key, String value) {}

    private final List<Change> changes = new ArrayList<>();
    private final Map<MerchantDayKey, Long> expected = new HashMap<>();
    private final Map<String, String> merchants = new LinkedHashMap<>();
    private int duplicates;

    public SyntheticLedger(int payments, Instant start, int days) {
        this("pay_", payments, start, days);
    }

    /** The same, with payment ids {@code <idPrefix><i>}, so two ledgers can share a topic. */
    public SyntheticLedger(String idPrefix, int payments, Instant start, int days) {
        this(idPrefix, payments, start, Duration.ofDays(days));
    }

    /** The same, spread over {@code span} from {@code start}. */
    public SyntheticLedger(String idPrefix, int payments, Instant start, Duration span) {
        long step = span.toMillis() / payments;
        for (int i = 0; i < payments; i++) {
            String id = idPrefix + i;
            String merchant = "m" + (i % 13);
            merchants.put(id, merchant);
            long amount = (i % 50 + 1) * 100L;
            String currency = i % 3 == 0 ? "USD" : "EUR";
            Instant pendingAt = start.plusMillis(i * step);
            Instant finalAt = pendingAt.plusSeconds(1);
            boolean succeeded = i % 5 != 0;
            String state = succeeded ? "SUCCEEDED" : "FAILED";
            changes.add(
                    new Change(
                            id,
                            schemasOff(
                                    after(
                                            id,
                                            merchant,
                                            amount,
                                            currency,
                                            "PENDING",
                                            pendingAt.toString()))));
            String finalAfter = after(id, merchant, amount, currency, state, finalAt.toString());
            // Every seventh change uses the schemas-on form, as Kafka Connect would write it.
            Change last =
                    new Change(id, i % 7 == 0 ? schemasOn(finalAfter) : schemasOff(finalAfter));
            changes.add(last);
            if (i % 10 == 0) {
                changes.add(last);
                duplicates++;
            }
            if (succeeded) {
                expected.merge(
                        new MerchantDayKey(
                                merchant, finalAt.atZone(ZoneOffset.UTC).toLocalDate(), currency),
                        amount,
                        Long::sum);
            }
        }
    }

    public List<Change> changes() {
        return changes;
    }

    public Map<MerchantDayKey, Long> expectedTotals() {
        return expected;
    }

    /** Each payment's merchant, by payment id, in the order of the payments. */
    public Map<String, String> merchants() {
        return merchants;
    }

    public int duplicates() {
        return duplicates;
    }
}
