package io.effonce.sink.internal.postgres;

import io.effonce.jdbc.JdbcUrls;
import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.PostgresStoreConfig;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Numbers a deployment from the sequence {@code sink_deployment}, where the job's graph is built.
 *
 * <p>A number is at least the database's clock in microseconds: a database that went back in time
 * (a standby promoted, a backup restored) also puts the sequence back, and would hand a later
 * deployment a number an earlier one already carries, so that a frozen attempt of the earlier one
 * could take the later one's key groups and have it refused for good. Its clock does not go back
 * with it; numbers grow as long as the database servers' clocks agree to within the time between
 * two deployments.
 */
final class DeploymentNumbers {

    private static final Logger LOG = LoggerFactory.getLogger(DeploymentNumbers.class);

    /** The next value, raised to the database's clock (serialized by the advisory lock). */
    private static final String NEXT =
            "SELECT setval('sink_deployment', GREATEST(nextval('sink_deployment'),"
                    + " (extract(epoch FROM clock_timestamp()) * 1000000)::bigint))";

    private DeploymentNumbers() {}

    /**
     * The next number. When the database cannot be reached from here (a client that builds the job
     * may not see the sink's database): a failure that says what it would cost and how to go on,
     * or, with {@code sink.require-deployment-number} false, empty with that warning.
     */
    static OptionalLong next(PostgresStoreConfig config) {
        return next(config, c -> null);
    }

    /** As {@link #next(PostgresStoreConfig)}, after {@code prepare} in the same transaction. */
    static OptionalLong next(PostgresStoreConfig config, RetryingSession.Work<?> prepare) {
        try (RetryingSession session =
                new RetryingSession(
                        config.toBuilder()
                                .maxRetries(1)
                                .retryBackoff(config.retryBackoff())
                                .build()
                                .session())) {
            return OptionalLong.of(
                    session.inTransaction(
                            "Numbering a deployment of " + config.table(),
                            c -> {
                                prepare.run(c);
                                try (PreparedStatement s =
                                        c.prepareStatement(
                                                "SELECT pg_advisory_xact_lock(hashtext("
                                                        + "'sink_deployment'))")) {
                                    s.execute();
                                }
                                try (PreparedStatement s = c.prepareStatement(NEXT);
                                        ResultSet rs = s.executeQuery()) {
                                    rs.next();
                                    return rs.getLong(1);
                                }
                            }));
        } catch (RuntimeException e) {
            String why =
                    "Could not number this deployment of "
                            + config.table()
                            + " from "
                            + JdbcUrls.redacted(config.jdbcUrl())
                            + " ("
                            + e.getMessage()
                            + "): unnumbered, it is not ordered against other deployments, so an"
                            + " attempt of an earlier one that wakes up after this one took its"
                            + " key groups may be taken for a later one. Build the job where the"
                            + " sink's database can be reached, or apply deploy/sql/sink.sql (the"
                            + " sequence sink_deployment)";
            // The sink's tables are not there yet (no sequence): the sink's start fails on them,
            // naming the script that creates them, which says more than a missing sequence.
            if (config.requireDeploymentNumber() && !relationMissing(e)) {
                throw new IllegalStateException(
                        why
                                + "; or set sink.require-deployment-number to false to run it"
                                + " unordered.",
                        e);
            }
            LOG.warn("{}.", why);
            return OptionalLong.empty();
        }
    }

    /** Whether {@code e} says a relation does not exist (SQLSTATE 42P01). */
    private static boolean relationMissing(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && "42P01".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
