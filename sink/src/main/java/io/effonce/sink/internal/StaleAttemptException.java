package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * A task attempt asked for its key-group range after a newer attempt of its subtask, or a later
 * deployment, had taken it: it was paused (a long GC, a frozen VM, a stopped process) while the job
 * moved on. It was refused inside the takeover transaction and changed nothing.
 */
@Internal
public final class StaleAttemptException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public StaleAttemptException(String message) {
        super(message);
    }
}
