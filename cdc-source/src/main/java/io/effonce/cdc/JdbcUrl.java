package io.effonce.cdc;

import java.net.URI;

/** Host, port and database of a single-host {@code jdbc:postgresql://} URL, as Debezium wants. */
record JdbcUrl(String host, int port, String database) {

    static JdbcUrl parse(String jdbcUrl) {
        IllegalArgumentException bad =
                new IllegalArgumentException(
                        "--db-url must look like jdbc:postgresql://HOST:PORT/DB with one host, was "
                                + jdbcUrl);
        if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
            throw bad;
        }
        try {
            URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
            String db = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
            if (uri.getHost() == null || db.isEmpty() || db.contains("/")) {
                throw bad;
            }
            return new JdbcUrl(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 5432, db);
        } catch (IllegalArgumentException e) {
            throw bad;
        }
    }
}
