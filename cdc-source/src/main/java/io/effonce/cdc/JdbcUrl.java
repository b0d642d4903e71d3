package io.effonce.cdc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * Host, port, database and TLS settings of a single-host {@code jdbc:postgresql://} URL, as
 * Debezium wants them, read by pgjdbc's own URL parser.
 *
 * @param tls the URL's TLS parameters as Debezium's {@code database.*} properties: {@code sslmode}
 *     ({@code ssl=true} alone means {@code verify-full}, as it does to pgjdbc), {@code
 *     sslrootcert}, {@code sslcert}, {@code sslkey}
 */
record JdbcUrl(String host, int port, String database, Map<String, String> tls) {

    private static final PGProperty[] TLS_FILES = {
        PGProperty.SSL_ROOT_CERT, PGProperty.SSL_CERT, PGProperty.SSL_KEY
    };

    static JdbcUrl parse(String jdbcUrl) {
        Properties url =
                jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql://")
                        ? null
                        : Driver.parseURL(jdbcUrl, null);
        String host = url == null ? null : PGProperty.PG_HOST.getOrDefault(url);
        String database = url == null ? null : PGProperty.PG_DBNAME.getOrDefault(url);
        if (host == null || host.contains(",") || database == null || database.isEmpty()) {
            throw new IllegalArgumentException(
                    "--db-url must look like jdbc:postgresql://HOST:PORT[,HOST:PORT...]/DB, was "
                            + jdbcUrl);
        }
        Map<String, String> tls = new LinkedHashMap<>();
        String mode = PGProperty.SSL_MODE.getOrDefault(url);
        if (mode != null) {
            tls.put("database.sslmode", mode);
        } else if ("true".equalsIgnoreCase(PGProperty.SSL.getOrDefault(url))) {
            tls.put("database.sslmode", "verify-full");
        }
        for (PGProperty file : TLS_FILES) {
            String path = file.getOrDefault(url);
            if (path != null) {
                tls.put("database." + file.getName(), path);
            }
        }
        return new JdbcUrl(
                host, Integer.parseInt(PGProperty.PG_PORT.getOrDefault(url)), database, tls);
    }
}
