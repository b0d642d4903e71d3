package io.effonce.testing.junit;

import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one PostgreSQL for the whole test run (embedded, or the external one the environment
 * names) and gives each test class its own new database with the schema applied. Parameters of type
 * {@link PostgresEndpoint} receive the superuser endpoint of that database; parameters of type
 * {@link EmbeddedPostgres} receive the server itself, for restart tests (embedded only).
 */
public final class PostgresExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NS =
            ExtensionContext.Namespace.create(PostgresExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == PostgresEndpoint.class || type == EmbeddedPostgres.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Server server = server(context);
        if (parameter.getParameter().getType() == EmbeddedPostgres.class) {
            if (server.embedded == null) {
                throw new IllegalStateException(
                        "This test restarts PostgreSQL and needs the embedded server; unset "
                                + LocalServices.PG_URL
                                + " to run it");
            }
            return server.embedded;
        }
        ExtensionContext classContext = classContext(context);
        return classContext
                .getStore(NS)
                .getOrComputeIfAbsent(
                        "database",
                        k -> {
                            PostgresEndpoint db =
                                    LocalServices.newDatabase(server.admin, "effonce_test");
                            SchemaTool.applyAll(db);
                            return db;
                        },
                        PostgresEndpoint.class);
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getParent().isPresent() && c.getTestMethod().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }

    private static Server server(ExtensionContext context) {
        return context.getRoot()
                .getStore(NS)
                .getOrComputeIfAbsent("server", k -> new Server(), Server.class);
    }

    /** The run-wide server; JUnit closes it when the run ends. */
    private static final class Server
            implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final EmbeddedPostgres embedded;
        final PostgresEndpoint admin;

        Server() {
            var external = LocalServices.externalPostgres(System.getenv());
            this.embedded = external.isPresent() ? null : EmbeddedPostgres.start();
            this.admin = external.orElseGet(embedded::endpoint);
        }

        @Override
        public void close() {
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
