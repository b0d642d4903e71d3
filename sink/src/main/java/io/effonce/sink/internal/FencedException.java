package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * A write was refused because another writer has taken some of this writer's key groups since: this
 * writer belongs to a failed attempt and must stop. Its transaction did not commit.
 */
@Internal
public final class FencedException extends RuntimeException {

    public FencedException(String message) {
        super(message);
    }
}
