package io.effonce.sink.store;

import io.effonce.jdbc.RetryingSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Numbers a deployment from the sequence {@code sink_deployment}, where the job's graph is built.
 */
final class DeploymentNumbers {

    private static final Logger LOG = LoggerFactory.getLogger(DeploymentNumbers.class);

    private DeploymentNumbers() {}

    /**
     * The next number, or empty (with a warning that says what it costs) when the database cannot
     * be reached from here: a client that submits the job may not see the sink's database.
     */
    static OptionalLong next(PostgresStoreConfig config) {
        try (RetryingSession session =
                new RetryingSession(config.withRetries(1, config.retryBackoff()))) {
            return OptionalLong.of(
                    session.inTransaction(
                            "Numbering a deployment of " + config.table(),
                            c -> {
                                try (PreparedStatement s =
                                                c.prepareStatement(
                                                        "SELECT nextval('sink_deployment')");
                                        ResultSet rs = s.executeQuery()) {
                                    rs.next();
                                    return rs.getLong(1);
                                }
                            }));
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not number this deployment of {} from {} ({}): it is not ordered against"
                            + " other deployments, so an attempt of an earlier one that wakes up"
                            + " after this one took its key groups may be taken for a later one."
                            + " Build the job where the sink's database can be reached, or apply"
                            + " deploy/sql/sink.sql (the sequence sink_deployment).",
                    config.table(),
                    PostgresStoreConfig.redacted(config.jdbcUrl()),
                    e.getMessage());
            return OptionalLong.empty();
        }
    }
}
