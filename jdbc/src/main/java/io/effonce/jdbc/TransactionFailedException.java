package io.effonce.jdbc;

import java.sql.SQLException;

/** A transaction that failed for good; the task fails and Flink restores it. */
public final class TransactionFailedException extends RuntimeException {

    public TransactionFailedException(
            String what, SessionSettings config, SQLException cause, int retries) {
        super(
                what
                        + " on "
                        + config
                        + " failed"
                        + (retries > 0 ? " after " + retries + " retries" : "")
                        + " (SQLSTATE "
                        + cause.getSQLState()
                        + "): "
                        + cause.getMessage()
                        + hint(cause.getSQLState()),
                cause);
    }

    /** The SQLSTATE of the failure, or null. */
    public String sqlState() {
        return ((SQLException) getCause()).getSQLState();
    }

    /**
     * Whether the failure is a setting or a schema that no retry or restart changes: a login
     * refused, a missing database, table, column or privilege. A person must act.
     */
    public boolean misconfiguration() {
        String state = sqlState();
        return state != null
                && (state.startsWith("28")
                        || state.equals("3D000")
                        || state.equals("42501")
                        || state.equals("42P01")
                        || state.equals("42703"));
    }

    private static String hint(String state) {
        if (state == null) {
            return "";
        }
        if (state.startsWith("28")) {
            return ". Check the user and password.";
        }
        if (state.equals("42501")) {
            return ". The role lacks a privilege: apply deploy/sql/roles.sql.";
        }
        if (state.equals("42P01")) {
            return ". The table is missing: apply deploy/sql/sink.sql.";
        }
        if (state.equals("42703")) {
            return ". A column is missing (tables of an older release): apply deploy/sql/sink.sql"
                    + " again, it adds what this release needs.";
        }
        return "";
    }
}
