package io.effonce.sink.internal;

import io.effonce.jdbc.TransactionFailedException;
import io.effonce.sink.internal.postgres.TablesScriptFile;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
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
@Internal
public final class SinkMisconfiguredException extends RuntimeException {

    private static final String CREATE_THEM =
            " Create the sink's tables as a user that may (or give the sink that right and set"
                    + " sink.create-tables=true):\n";

    private static final String NO_RESTART =
            " The job fails without restarting: fix this, then submit it again, from its newest"
                    + " retained checkpoint if it completed one, else as before (it has nothing"
                    + " to resume).";

    public SinkMisconfiguredException(TransactionFailedException cause) {
        this(cause, Optional.empty());
    }

    /**
     * What a failure at start means: this exception when no restart can make it work (a login
     * refused, a table missing), else {@code failure} itself.
     */
    static RuntimeException atStart(
            TransactionFailedException failure, Optional<String> tablesScript) {
        return failure.misconfiguration()
                ? new SinkMisconfiguredException(failure, tablesScript)
                : failure;
    }

    /**
     * With the script that creates the sink's tables, shown when a table or a column is missing
     * (SQLSTATE 42P01, 42703).
     */
    public SinkMisconfiguredException(
            TransactionFailedException cause, Optional<String> tablesScript) {
        super(
                cause.getMessage()
                        + tablesScript
                                .filter(script -> missingTable(cause))
                                .map(SinkMisconfiguredException::createThem)
                                .orElse("")
                        + tablesScript
                                .filter(script -> "42501".equals(cause.sqlState()))
                                .map(SinkMisconfiguredException::grantThem)
                                .orElse("")
                        + NO_RESTART,
                cause);
    }

    /**
     * The grants of a table that deploy/sql/roles.sql does not list (a SQL connector's), which a
     * refused right needs besides that file; roles.sql revokes what it does not list, so it comes
     * first.
     */
    private static String grantThem(String script) {
        String grants =
                script.lines()
                        .filter(line -> line.startsWith("GRANT "))
                        .collect(Collectors.joining(" "));
        return " deploy/sql/roles.sql grants the tables every sink shares to effonce_sink, and"
                + " begins by revoking what it does not list; after it, grant this sink's own"
                + " tables: "
                + grants;
    }

    /** What the sink's tables lack, found before any statement needed it, with their script. */
    public SinkMisconfiguredException(String lack, Optional<String> tablesScript) {
        super(
                lack
                        + tablesScript.map(SinkMisconfiguredException::createThem).orElse("")
                        + NO_RESTART);
    }

    private static String createThem(String script) {
        return TablesScriptFile.note(script) + CREATE_THEM + script;
    }

    private static boolean missingTable(TransactionFailedException cause) {
        return "42P01".equals(cause.sqlState()) || "42703".equals(cause.sqlState());
    }
}
