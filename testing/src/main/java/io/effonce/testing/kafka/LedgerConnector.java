package io.effonce.testing.kafka;

import io.effonce.testing.PostgresEndpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * Debezium's PostgreSQL connector for the ledger, configured as a Kafka Connect user of this job
 * would (job/README.md, "Reading Debezium on Kafka Connect"): the publication the schema created,
 * no tombstones, heartbeats every 500 ms, an initial snapshot, the password through Connect's file
 * config provider ({@code ${file:...}}), never in the config itself.
 */
public final class LedgerConnector {

    private LedgerConnector() {}

    /**
     * The connector's config over {@code db}, with topic prefix and slot {@code prefix}; writes the
     * password file under {@code dir}. The map is mutable, for a caller's overrides.
     */
    public static Map<String, String> config(PostgresEndpoint db, String prefix, Path dir)
            throws IOException {
        Properties url = Driver.parseURL(db.jdbcUrl(), null);
        if (url == null) {
            throw new IllegalArgumentException("Not a PostgreSQL JDBC URL: " + db.jdbcUrl());
        }
        Path secrets = dir.resolve(prefix + "-db.properties");
        Files.createDirectories(dir);
        Files.writeString(secrets, "password=" + db.password() + "\n", StandardCharsets.UTF_8);
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        c.put("tasks.max", "1");
        c.put("database.hostname", url.getProperty("PGHOST"));
        c.put("database.port", url.getProperty("PGPORT"));
        c.put("database.dbname", url.getProperty("PGDBNAME"));
        c.put("database.user", db.user());
        c.put("database.password", "${file:" + secrets + ":password}");
        c.put("topic.prefix", prefix);
        c.put("plugin.name", "pgoutput");
        c.put("slot.name", prefix);
        c.put("publication.name", "effonce_payments");
        c.put("publication.autocreate.mode", "disabled");
        c.put("table.include.list", "public.payments");
        c.put("snapshot.mode", "initial");
        c.put("heartbeat.interval.ms", "500");
        c.put("tombstones.on.delete", "false");
        return c;
    }

    /** The topic Debezium writes its heartbeats to for {@code prefix}. */
    public static String heartbeatTopic(String prefix) {
        return "__debezium-heartbeat." + prefix;
    }
}
