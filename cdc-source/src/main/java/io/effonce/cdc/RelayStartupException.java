package io.effonce.cdc;

/** The relay could not start; the message says why and how to fix it. */
public final class RelayStartupException extends RuntimeException {

    RelayStartupException(String message) {
        super(message);
    }

    RelayStartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
