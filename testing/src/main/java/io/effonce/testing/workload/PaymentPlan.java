package io.effonce.testing.workload;

import java.util.List;

/**
 * One payment the workload will write: the request (scope, fingerprint and meaning fields), the
 * state its row is created in, and the steps that follow, each in a later transaction.
 *
 * @param index position in the run; plans are a pure function of the seed and the index
 * @param paymentId derived from the caller's scope, never random
 * @param initial PENDING, or VOID for a "did it happen?" call on a key that never arrived
 * @param steps moves (compare-and-set) and retries of the same request, in order
 */
public record PaymentPlan(
        long index,
        String paymentId,
        String callerId,
        String clientKey,
        String merchantId,
        String fingerprint,
        long amount,
        String currency,
        PaymentState initial,
        List<Step> steps) {

    public PaymentPlan {
        steps = List.copyOf(steps);
    }

    /** What happens to a payment after its row is created. */
    public sealed interface Step permits Move, Retry {}

    /** A compare-and-set from the current state to {@code to}. */
    public record Move(PaymentState to) implements Step {}

    /**
     * The same request sent again (a lost reply, a late original): it hits the unique key and must
     * be answered from the existing row.
     */
    public record Retry() implements Step {}

    /** The state the plan ends in. */
    public PaymentState finalState() {
        PaymentState state = initial;
        for (Step step : steps) {
            if (step instanceof Move move) {
                state = move.to();
            }
        }
        return state;
    }

    /** Whether the plan contains a retry of its request. */
    public boolean hasRetry() {
        return steps.stream().anyMatch(s -> s instanceof Retry);
    }
}
