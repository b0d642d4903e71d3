package io.effonce.bench;

import io.effonce.testing.workload.Zipf;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The benchmark's input: payments created PENDING and later moved to SUCCEEDED or FAILED, as the
 * relay's Debezium envelopes (schemas off, {@code before: null}), in commit order, with a share of
 * the records re-sent as exact copies at random later positions (what an at-least-once relay
 * restarting from an old position does). Held as primitive arrays, so 5,000,000 records fit in a
 * small heap; the JSON is built as each record is published. Deterministic for a seed.
 */
final class ChangeStream {

    private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};

    private final BenchOptions options;
    private final int payments;
    private final int[] merchant;
    private final byte[] currency;
    private final long[] amount;
    private final long[] createdAtMs;
    private final long[] finalAtMs;
    private final boolean[] succeeded;

    /** Record order: (position key << 32) | change index; change 2p is p's PENDING, 2p+1 final. */
    private final long[] order;

    private final Map<TotalsKey, long[]> expected = new HashMap<>();

    ChangeStream(BenchOptions options) {
        this.options = options;
        this.payments = (int) Math.round(options.records() / (2 * (1 + options.duplicateShare())));
        SplittableRandom random = new SplittableRandom(options.seed());
        Zipf merchants = new Zipf(options.merchants(), options.zipfExponent());
        merchant = new int[payments];
        currency = new byte[payments];
        amount = new long[payments];
        createdAtMs = new long[payments];
        finalAtMs = new long[payments];
        succeeded = new boolean[payments];
        long start = options.start().toEpochMilli();
        long span = options.days() * 86_400_000L;
        for (int p = 0; p < payments; p++) {
            merchant[p] = merchants.rank(random.nextDouble()) + 1;
            double c = random.nextDouble();
            currency[p] = (byte) (c < 0.6 ? 0 : c < 0.9 ? 1 : 2);
            amount[p] = 100 + random.nextLong(99_901);
            createdAtMs[p] = start + span * p / payments;
            finalAtMs[p] = createdAtMs[p] + 1_000 + random.nextLong(29_000);
            succeeded[p] = random.nextDouble() < 0.8;
            if (succeeded[p]) {
                long[] t =
                        expected.computeIfAbsent(
                                new TotalsKey(
                                        "m" + merchant[p],
                                        Instant.ofEpochMilli(finalAtMs[p])
                                                .atZone(ZoneOffset.UTC)
                                                .toLocalDate(),
                                        CURRENCIES[currency[p]]),
                                k -> new long[2]);
                t[0] += amount[p];
                t[1]++;
            }
        }
        order = order(random);
    }

    /**
     * Commit order of the changes (by time; a final state lands among later payments' creations),
     * then each copy placed at a uniformly random later position.
     */
    private long[] order(SplittableRandom random) {
        int changes = 2 * payments;
        long[] byTime = new long[changes];
        for (int p = 0; p < payments; p++) {
            byTime[2 * p] = (createdAtMs[p] - options.start().toEpochMilli()) << 24 | (2L * p);
            byTime[2 * p + 1] =
                    (finalAtMs[p] - options.start().toEpochMilli()) << 24 | (2L * p + 1);
        }
        Arrays.sort(byTime);
        int copies = (int) Math.round(changes * options.duplicateShare());
        long[] all = new long[changes + copies];
        // Position keys: change at rank r gets 256 r; a copy of rank r gets a key after it.
        for (int r = 0; r < changes; r++) {
            all[r] = (256L * r) << 32 | (byTime[r] & 0xFFFFFF);
        }
        for (int k = 0; k < copies; k++) {
            int r = random.nextInt(changes);
            long key = 256L * r + 1 + random.nextLong(256L * (changes - r));
            all[changes + k] = key << 32 | (byTime[r] & 0xFFFFFF);
        }
        Arrays.sort(all);
        return all;
    }

    int payments() {
        return payments;
    }

    int records() {
        return order.length;
    }

    int copies() {
        return order.length - 2 * payments;
    }

    /** Per merchant-day-currency: total minor units and number of successes. */
    Map<TotalsKey, long[]> expectedTotals() {
        return expected;
    }

    /** The payment id of the record at {@code position}: the Kafka key. */
    String key(int position) {
        return paymentId(change(position) / 2);
    }

    /** The Debezium envelope of the record at {@code position}. */
    String value(int position) {
        int change = change(position);
        int p = change / 2;
        boolean created = change % 2 == 0;
        String state = created ? "PENDING" : succeeded[p] ? "SUCCEEDED" : "FAILED";
        return Envelopes.payment(
                paymentId(p),
                "c" + (p % 97),
                "m" + merchant[p],
                amount[p],
                CURRENCIES[currency[p]],
                state,
                created ? createdAtMs[p] : finalAtMs[p],
                change,
                created);
    }

    private int change(int position) {
        return (int) (order[position] & 0xFFFFFF);
    }

    private static String paymentId(int p) {
        return "pay-" + p;
    }
}
