package io.effonce.jdbc;

/**
 * The database refused a write for what its rows contain (SQLSTATE class 22 data exception, 23
 * integrity violation, 54 program limit exceeded): the same rows would be refused again after any
 * retry or restore. The sink finds the offending rows and quarantines them instead of failing.
 */
public final class RefusedRowsException extends RuntimeException {

    private final String sqlState;
    private final String databaseMessage;

    public RefusedRowsException(
            String what, String sqlState, String databaseMessage, Throwable cause) {
        super(what + " refused (SQLSTATE " + sqlState + "): " + databaseMessage, cause);
        this.sqlState = sqlState;
        this.databaseMessage = databaseMessage;
    }

    public String sqlState() {
        return sqlState;
    }

    /** The database's own words, without what the sink was doing. */
    public String databaseMessage() {
        return databaseMessage;
    }
}
