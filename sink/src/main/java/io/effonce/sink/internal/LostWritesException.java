package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * The sink's database no longer holds write transactions it acknowledged to this writer: it went
 * back in time (an asynchronous standby promoted, a backup restored). The task fails so that Flink
 * restores; the restore sees the range's progress behind the restored checkpoint and repairs the
 * live and committed tables from state.
 */
@Internal
public final class LostWritesException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LostWritesException(String message) {
        super(message);
    }
}
