package io.effonce.jdbc;

import java.sql.SQLException;
import java.sql.SQLTransientException;

/**
 * Sorts SQL errors by SQLSTATE into those worth a retry after reconnecting (the connection or the
 * server went away, a deadlock or serialization conflict, a lock wait or an idle transaction the
 * server cut short), those caused by what the rows contain (quarantined, see {@link
 * RefusedRowsException}), and the rest, which will fail again the same way (authentication,
 * permissions, syntax) and fail the task.
 */
public final class SqlErrors {

    private SqlErrors() {}

    /**
     * Whether the database refused the statement for what its rows contain: class 22 (data
     * exception: a value out of range, a NUL byte, a bad encoding), 23 (integrity constraint
     * violation) or 54 (program limit exceeded: an index row too large).
     */
    public static boolean isRefusedData(SQLException e) {
        String state = e.getSQLState();
        return state != null
                && (state.startsWith("22") || state.startsWith("23") || state.startsWith("54"));
    }

    public static boolean isRetryable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                if (state != null) {
                    return state.startsWith("08") // connection exception
                            || state.equals("57P01") // admin shutdown
                            || state.equals("57P02") // crash shutdown
                            || state.equals("57P03") // cannot connect now (starting up)
                            || state.equals("53300") // too many connections
                            || state.equals("40001") // serialization failure
                            || state.equals("40P01") // deadlock detected
                            || state.equals("55P03") // lock not available (lock_timeout)
                            || state.equals("25P03"); // idle in transaction too long
                }
                if (sql instanceof SQLTransientException) {
                    return true;
                }
            }
        }
        return false;
    }
}
