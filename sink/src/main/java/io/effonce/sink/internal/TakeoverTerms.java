package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * What a takeover does with the range, as the start's plan decided on what the takeover's own
 * transaction read ({@link StartPlan#terms}): the store carries it out and derives nothing.
 */
@Internal
public enum TakeoverTerms {
    /** Nothing is written: a refused start, or one that asks again at its first barrier. */
    LEAVE,
    /** Take the range. */
    TAKE,
    /**
     * Take the range and revoke what its rows prove ({@code ProofRows.revoke}), in the same
     * transaction: the plan restores a checkpoint they do not prove, and the takeover starts the
     * writers' counts anew, which may be all that showed it (writes lost in a partial restore). Cut
     * before its flush ended, the next restore must not find the range proven; the new owner's
     * first barrier proves it again. More full flushes, never fewer.
     */
    TAKE_REVOKING_PROOF;

    public boolean takes() {
        return this != LEAVE;
    }

    public boolean revokesProof() {
        return this == TAKE_REVOKING_PROOF;
    }
}
