package io.effonce.sink.store;

import io.effonce.jdbc.TransactionFailedException;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * The sink cannot start as configured: its login is refused, or its database lacks a table, a
 * column or a right (the message names the fix). Flink does not restart the job into the same
 * failure over and over ({@link ThrowableType#NonRecoverableError}): it fails once, and the message
 * is the first thing in its exception history. Once fixed, the job is submitted again from its
 * newest retained checkpoint.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class SinkMisconfiguredException extends RuntimeException {

    public SinkMisconfiguredException(TransactionFailedException cause) {
        super(
                cause.getMessage()
                        + " The job fails without restarting: fix this, then submit it again from"
                        + " its newest retained checkpoint.",
                cause);
    }
}
