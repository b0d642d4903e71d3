package io.effonce.sink.internal;

import java.util.Optional;
import org.apache.flink.util.Preconditions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sink subtask attempt's start ({@link StartProtocol}): made when it opens, or, when the protocol
 * says so (row 3b of {@link StartDecision}), again at its first barrier. Until then the attempt
 * owns nothing and writes nothing; its output waits in the buffer and in {@link
 * ChangesSinceBarrier}, and its keyed state is still the restored state.
 */
final class AttemptStart<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptStart.class);

    private final StartProtocol<K, V> protocol;
    private final KeyGroupSpan span;
    private final Claim claim;
    private final RestoredState<K, V> restored;
    private final Optional<String> checkpointsDir;
    private boolean awaitingFirstBarrier;

    /** Whether the range was taken: a refused start (its open() threw) writes nothing at close. */
    private boolean started;

    AttemptStart(
            StartProtocol<K, V> protocol,
            KeyGroupSpan span,
            Claim claim,
            RestoredState<K, V> restored,
            Optional<String> checkpointsDir) {
        this.protocol = protocol;
        this.span = span;
        this.claim = claim;
        this.restored = restored;
        this.checkpointsDir = checkpointsDir;
    }

    /** Starts at open: takes the range, or learns it must ask again at its first barrier. */
    void atOpen() {
        awaitingFirstBarrier = !protocol.start(span, claim, restored, checkpointsDir);
        started = !awaitingFirstBarrier;
    }

    /**
     * Before barrier {@code checkpointId} goes on: asks again if the start waits for it. The keyed
     * state is still the restored state; the flush reads it before this barrier's changes go in.
     */
    void atBarrier(long checkpointId) {
        if (awaitingFirstBarrier) {
            Preconditions.checkState(
                    protocol.start(
                            span, claim.atFirstBarrier(checkpointId), restored, checkpointsDir),
                    "A claim made at a barrier is decided");
            awaitingFirstBarrier = false;
            started = true;
        }
    }

    /** Whether the attempt still owns nothing: it may not write. */
    boolean awaitingFirstBarrier() {
        return awaitingFirstBarrier;
    }

    /**
     * Whether the attempt may write what is left when its input ends; not while it owns nothing:
     * the final checkpoint's barrier, if it comes, takes the range and writes.
     */
    boolean mayWriteAtEnd() {
        if (awaitingFirstBarrier) {
            LOG.warn(
                    "{}: input ended before the first barrier this attempt waits for; its output"
                            + " is written at the final checkpoint's barrier, or not at all",
                    claim.task());
        }
        return started;
    }

    /** As the attempt closes, even after a failure: releases the range it took, if it took one. */
    void atClose() {
        if (started) {
            protocol.releaseLease(claim);
        }
    }
}
