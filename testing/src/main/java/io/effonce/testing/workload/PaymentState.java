package io.effonce.testing.workload;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a payment row and the moves between them. A payment is born PENDING (the intent is
 * recorded before the PSP call) or VOID (a "did it happen?" call for a key that never arrived); it
 * leaves PENDING for a final answer or for UNKNOWN when the deadline comes first, and leaves
 * UNKNOWN only for a final answer. Nothing leaves a final state.
 */
public enum PaymentState {
    PENDING,
    UNKNOWN,
    SUCCEEDED,
    FAILED,
    VOID;

    /** Whether a row may be created in this state. */
    public boolean isInitial() {
        return this == PENDING || this == VOID;
    }

    /** Whether this state is an answer that never changes. */
    public boolean isFinal() {
        return this == SUCCEEDED || this == FAILED || this == VOID;
    }

    /** Whether a compare-and-set may move a row from this state to {@code next}. */
    public boolean canMoveTo(PaymentState next) {
        return successors().contains(next);
    }

    /** The states a compare-and-set may move a row to from this one. */
    public Set<PaymentState> successors() {
        switch (this) {
            case PENDING:
                return EnumSet.of(UNKNOWN, SUCCEEDED, FAILED);
            case UNKNOWN:
                return EnumSet.of(SUCCEEDED, FAILED);
            default:
                return EnumSet.noneOf(PaymentState.class);
        }
    }
}
