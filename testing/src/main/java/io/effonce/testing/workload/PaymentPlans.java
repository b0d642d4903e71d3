package io.effonce.testing.workload;

import io.effonce.testing.workload.PaymentPlan.Move;
import io.effonce.testing.workload.PaymentPlan.Retry;
import io.effonce.testing.workload.PaymentPlan.Step;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Turns a seed and an index into a payment plan. Each plan depends only on (seed, index) and the
 * options, never on timing or batch size, so a run is reproducible and can be split freely.
 *
 * <p>Mix of outcomes: about 2% VOID rows (half of them later hit by their late original, which is
 * refused), the rest PENDING; of those about 80% succeed at once, 8% fail at once, 10% go through
 * UNKNOWN first (7% then succeed, 3% fail). About 5% of non-void payments are retried once.
 */
public final class PaymentPlans {

    private static final HexFormat HEX = HexFormat.of();

    private final WorkloadOptions options;
    private final Zipf merchants;
    private final Zipf currencies;

    public PaymentPlans(WorkloadOptions options) {
        this.options = options;
        this.merchants = new Zipf(options.merchants(), options.zipfExponent());
        this.currencies = new Zipf(options.currencies().size(), options.zipfExponent());
    }

    /** The plan of the {@code index}-th payment. */
    public PaymentPlan plan(long index) {
        SplittableRandom random =
                new SplittableRandom(mix(options.seed() * 0x9E3779B97F4A7C15L + index));
        String callerId = options.scope() + "-u" + random.nextInt(options.callers());
        // Distinct indexes give distinct keys: mix() is a bijection.
        String clientKey = "k" + Long.toHexString(mix(index ^ (options.seed() << 32)));
        String merchantId = "m" + (1 + merchants.rank(random.nextDouble()));
        String currency = options.currencies().get(currencies.rank(random.nextDouble()));
        // Log-uniform between 1.00 and 2,000.00 in minor units.
        long amount = Math.round(100 * Math.pow(2000, random.nextDouble()));
        String orderId = "o" + index;
        String fingerprint =
                "fp_" + sha256(orderId + "|" + merchantId + "|" + amount + "|" + currency, 8);

        List<Step> steps = new ArrayList<>();
        double outcome = random.nextDouble();
        PaymentState initial = PaymentState.PENDING;
        if (outcome < 0.02) {
            initial = PaymentState.VOID;
            if (random.nextBoolean()) {
                steps.add(new Retry()); // the late original arrives and finds VOID
            }
        } else {
            if (outcome < 0.82) {
                steps.add(new Move(PaymentState.SUCCEEDED));
            } else if (outcome < 0.90) {
                steps.add(new Move(PaymentState.FAILED));
            } else if (outcome < 0.97) {
                steps.add(new Move(PaymentState.UNKNOWN));
                steps.add(new Move(PaymentState.SUCCEEDED));
            } else {
                steps.add(new Move(PaymentState.UNKNOWN));
                steps.add(new Move(PaymentState.FAILED));
            }
            if (random.nextDouble() < 0.05) {
                steps.add(random.nextInt(steps.size() + 1), new Retry());
            }
        }
        return new PaymentPlan(
                index,
                paymentId(callerId, clientKey),
                callerId,
                clientKey,
                merchantId,
                fingerprint,
                amount,
                currency,
                initial,
                steps);
    }

    /** The payment id derived from the request's scope: the same scope always gives the same id. */
    public static String paymentId(String callerId, String clientKey) {
        return "pay_" + sha256("payments:" + callerId + ":" + clientKey, 12);
    }

    /** SplitMix64's finaliser: a bijection on longs that scatters neighbouring inputs. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static String sha256(String text, int bytes) {
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256")
                            .digest(text.getBytes(StandardCharsets.UTF_8));
            return HEX.formatHex(digest, 0, bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
