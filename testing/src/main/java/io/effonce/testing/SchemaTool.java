package io.effonce.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the project's schema files ({@code deploy/sql}) to a database. Every file is idempotent,
 * so applying twice is safe; each file runs in one transaction.
 */
public final class SchemaTool {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaTool.class);

    /** The ledger, the sink's tables, then the roles that are granted on both. */
    public static final List<String> ALL = List.of("ledger.sql", "sink.sql", "roles.sql");

    private SchemaTool() {}

    /** Applies every schema file, in order. */
    public static void applyAll(PostgresEndpoint endpoint) {
        apply(endpoint, ALL);
    }

    /** Applies the named files of {@code deploy/sql}, in order. */
    public static void apply(PostgresEndpoint endpoint, List<String> files) {
        try (Connection connection = endpoint.connect()) {
            connection.setAutoCommit(false);
            for (String file : files) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(read(file));
                    connection.commit();
                    LOG.info("Applied {} to {}", file, endpoint);
                } catch (SQLException e) {
                    connection.rollback();
                    throw new IllegalStateException(
                            "Schema file "
                                    + file
                                    + " failed on "
                                    + endpoint
                                    + ": "
                                    + e.getMessage(),
                            e);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Cannot apply the schema: " + endpoint + " is not reachable: " + e.getMessage(),
                    e);
        }
    }

    /** The text of one schema file, packaged from {@code deploy/sql}. */
    public static String read(String file) {
        try (InputStream in = SchemaTool.class.getResourceAsStream("/sql/" + file)) {
            if (in == null) {
                throw new IllegalArgumentException(
                        "No schema file " + file + "; known files: " + ALL);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
