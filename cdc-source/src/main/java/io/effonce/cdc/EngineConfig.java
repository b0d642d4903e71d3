package io.effonce.cdc;

import java.util.Map;
import java.util.Properties;

/** The Debezium engine and PostgreSQL connector properties for a set of relay options. */
final class EngineConfig {

    private EngineConfig() {}

    static Properties properties(RelayOptions o, Preflight.Findings findings) {
        JdbcUrl url = JdbcUrl.parse(o.connectUrl());
        Properties p = new Properties();
        p.setProperty("name", "effonce-relay-" + o.topicPrefix);
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");

        if (o.offsetsTopic != null) {
            p.setProperty(
                    "offset.storage", "org.apache.kafka.connect.storage.KafkaOffsetBackingStore");
            p.setProperty("offset.storage.topic", o.offsetsTopic);
            p.setProperty("offset.storage.partitions", "1");
            p.setProperty("offset.storage.replication.factor", Short.toString(o.replicationFactor));
            p.setProperty("bootstrap.servers", o.kafkaBootstrap);
            for (Map.Entry<String, String> e : o.kafkaProperties.entrySet()) {
                p.setProperty(e.getKey(), e.getValue());
            }
        } else {
            p.setProperty(
                    "offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
            p.setProperty(
                    "offset.storage.file.filename", o.offsetsFile.toAbsolutePath().toString());
        }
        p.setProperty("offset.flush.interval.ms", Long.toString(o.offsetFlushInterval.toMillis()));
        p.setProperty("offset.flush.timeout.ms", "10000");

        p.setProperty("database.hostname", url.host());
        p.setProperty("database.port", Integer.toString(url.port()));
        p.setProperty("database.dbname", url.database());
        url.tls().forEach(p::setProperty);
        p.setProperty("database.user", o.dbUser);
        p.setProperty("database.password", o.dbPassword);
        p.setProperty("topic.prefix", o.topicPrefix);
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", o.slot);
        p.setProperty(
                "slot.failover",
                Boolean.toString(o.slotFailover.appliesTo(findings.serverVersion())));
        p.setProperty("publication.name", o.publication);
        // An existing publication is used as it is (no ALTER, which needs ownership); a missing one
        // is created FOR TABLE public.payments only.
        p.setProperty(
                "publication.autocreate.mode",
                findings.publicationExists() ? "disabled" : "filtered");
        p.setProperty("table.include.list", "public.payments");
        p.setProperty("snapshot.mode", o.snapshotMode.getValue());
        p.setProperty("lsn.flush.mode", o.lsnFlushMode.getValue());
        p.setProperty("offset.mismatch.strategy", o.offsetMismatchStrategy.getValue());
        p.setProperty("heartbeat.interval.ms", Long.toString(o.heartbeatInterval.toMillis()));
        p.setProperty("tombstones.on.delete", "false");
        p.setProperty("max.batch.size", Integer.toString(o.maxBatchSize));
        p.setProperty("max.queue.size", Integer.toString(Math.max(8192, 4 * o.maxBatchSize)));
        p.setProperty("poll.interval.ms", Long.toString(o.pollInterval.toMillis()));
        // Fail fast on start-up errors; a supervisor restarts the relay from its offsets.
        p.setProperty("errors.max.retries", "0");
        return p;
    }
}
