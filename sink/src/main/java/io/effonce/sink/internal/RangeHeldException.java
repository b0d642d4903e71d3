package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * A start without state asked for a key-group range that another run still holds: it took the range
 * or passed a barrier in it within {@code sink.owner-lease} and has not closed (row 5a of {@link
 * StartDecision}). Most often a second deployment of the same job, started by mistake while the
 * first runs. It was refused inside the takeover transaction and changed nothing.
 */
@Internal
public final class RangeHeldException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public RangeHeldException(String message) {
        super(message);
    }
}
