package io.effonce.sink.internal.postgres;

import io.effonce.jdbc.JdbcUrls;
import io.effonce.jdbc.RetryingSession;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.RowMapping;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.SinkTableDdl;
import io.effonce.sink.internal.SinkMisconfiguredException;
import io.effonce.sink.internal.SinkStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.flink.annotation.Internal;

/**
 * What the job graph carries for a {@link PostgresSinkStore}: the config and the mapping; the store
 * is made in the task. Where its tables come from decides the rest: deployed by hand (deploy/sql),
 * or from {@link SinkTableDdl} for the mapping, created when missing or named in the failure of a
 * store that lacks them.
 */
@Internal
public final class PostgresStoreFactory<K, V> implements SinkStoreFactory<K, V> {

    private static final long serialVersionUID = 1L;

    /** Where the store's tables come from. */
    @Internal
    public enum Tables {
        /** deploy/sql or the user's own script; the sink neither creates nor prints them. */
        DEPLOYED,
        /** The mapping's, from {@link SinkTableDdl}: a store that lacks them prints the script. */
        FROM_MAPPING,
        /** The mapping's, created when missing (the login must be allowed to). */
        CREATED
    }

    private final PostgresStoreConfig config;
    private final RowMapping<K, V> mapping;
    private final Tables tables;

    public PostgresStoreFactory(
            PostgresStoreConfig config, RowMapping<K, V> mapping, Tables tables) {
        this.config = config;
        this.mapping = mapping;
        this.tables = tables;
    }

    /**
     * The store, after its tables are created (when asked) and checked: what they lack fails the
     * sink once, with the script that creates a mapping's tables (deployed tables: their own
     * script, applied again, adds what a newer release needs).
     */
    @Override
    public SinkStore<K, V> create() {
        List<String> missing;
        try (RetryingSession session = new RetryingSession(config.session())) {
            missing =
                    session.inTransaction(
                            "Checking the tables of " + config.table(),
                            c -> {
                                if (tables == Tables.CREATED) {
                                    create(c);
                                }
                                return SinkTableCheck.missing(c, config.table(), mapping);
                            });
        }
        if (!missing.isEmpty()) {
            throw new SinkMisconfiguredException(
                    "The tables of the sink "
                            + config.table()
                            + " on "
                            + JdbcUrls.redacted(config.jdbcUrl())
                            + " lack "
                            + String.join(", ", missing)
                            + "."
                            + (tables == Tables.DEPLOYED
                                    ? " Apply deploy/sql/sink.sql again (it is idempotent),"
                                            + " or the script that created them."
                                    : ""),
                    tablesScript());
        }
        return new PostgresSinkStore<>(config, mapping);
    }

    /** Where the job is built the tables come first, so that sink_deployment exists. */
    @Override
    public OptionalLong numberDeployment() {
        return tables == Tables.CREATED
                ? DeploymentNumbers.next(config, this::create)
                : DeploymentNumbers.next(config);
    }

    @Override
    public Optional<String> tablesScript() {
        return tables == Tables.DEPLOYED
                ? Optional.empty()
                : Optional.of(SinkTableDdl.scriptToPrint(config.table(), mapping, config.user()));
    }

    private Void create(Connection c) throws SQLException {
        SinkTableDdl.create(c, config.table(), mapping);
        return null;
    }
}
