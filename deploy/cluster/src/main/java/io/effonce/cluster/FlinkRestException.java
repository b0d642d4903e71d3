package io.effonce.cluster;

/** Flink's REST API answered with an error (the message holds Flink's own error text). */
public final class FlinkRestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FlinkRestException(String message) {
        super(message);
    }

    public FlinkRestException(String message, Throwable cause) {
        super(message, cause);
    }
}
