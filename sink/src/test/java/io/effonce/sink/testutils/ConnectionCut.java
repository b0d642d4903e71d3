package io.effonce.sink.testutils;

/**
 * How a store call's connection to the database is cut at its COMMIT: whether the transaction
 * committed (the answer was lost) or not, and whether the database stays out of reach for the rest
 * of the task's step (the session's retries run out and the task fails) or the session's retry
 * reaches it again.
 */
public enum ConnectionCut {
    ANSWER_LOST(true, false),
    TRANSACTION_LOST(false, false),
    DOWN_AFTER_COMMIT(true, true),
    DOWN_BEFORE_COMMIT(false, true);

    private final boolean committed;
    private final boolean databaseDown;

    ConnectionCut(boolean committed, boolean databaseDown) {
        this.committed = committed;
        this.databaseDown = databaseDown;
    }

    public boolean committed() {
        return committed;
    }

    public boolean databaseDown() {
        return databaseDown;
    }

    /** What a store call whose database went down throws, where no session retries it. */
    RuntimeException unreachable() {
        return new IllegalStateException(
                "The database is unreachable: a connection cut drawn by the test (" + this + ")");
    }
}
