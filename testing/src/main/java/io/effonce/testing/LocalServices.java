package io.effonce.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Chooses between embedded services and external ones. With {@code EFFONCE_PG_URL} set (plus {@code
 * EFFONCE_PG_USER} and {@code EFFONCE_PG_PASSWORD} or {@code EFFONCE_PG_PASSWORD_FILE}), PostgreSQL
 * is that server; with {@code EFFONCE_KAFKA_BOOTSTRAP} set, Kafka is that cluster. Otherwise both
 * start embedded on 127.0.0.1.
 */
public final class LocalServices {

    public static final String PG_URL = "EFFONCE_PG_URL";
    public static final String PG_USER = "EFFONCE_PG_USER";
    public static final String PG_PASSWORD = "EFFONCE_PG_PASSWORD";
    public static final String KAFKA_BOOTSTRAP = "EFFONCE_KAFKA_BOOTSTRAP";

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private LocalServices() {}

    /** The external PostgreSQL the environment names, if any. */
    public static Optional<PostgresEndpoint> externalPostgres(Map<String, String> env) {
        String url = env.get(PG_URL);
        if (url == null || url.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new PostgresEndpoint(
                        url,
                        Secrets.fromEnv(env, PG_USER, "postgres"),
                        Secrets.fromEnv(env, PG_PASSWORD, "")));
    }

    /** The external Kafka bootstrap servers the environment names, if any. */
    public static Optional<String> externalKafka(Map<String, String> env) {
        return Optional.ofNullable(env.get(KAFKA_BOOTSTRAP)).filter(s -> !s.isEmpty());
    }

    /**
     * Creates a new, empty database on the server of {@code admin} and returns its endpoint, so
     * that tests sharing one server do not see each other's tables.
     */
    public static PostgresEndpoint newDatabase(PostgresEndpoint admin, String prefix) {
        String name =
                prefix + "_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        try (Connection connection = admin.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Cannot create database " + name + " on " + admin + ": " + e.getMessage(), e);
        }
        int slash = admin.jdbcUrl().lastIndexOf('/');
        int query = admin.jdbcUrl().indexOf('?', slash);
        String url =
                admin.jdbcUrl().substring(0, slash + 1)
                        + name
                        + (query < 0 ? "" : admin.jdbcUrl().substring(query));
        return new PostgresEndpoint(url, admin.user(), admin.password());
    }
}
