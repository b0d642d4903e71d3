package io.effonce.cdc.testutils;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Command lines and environment for relays under test, one name per test for slot and topic. */
public final class RelaySetup {

    private final PostgresEndpoint db;
    private final KafkaBootstrap kafka;
    private final String name;
    private final Path offsets;

    public RelaySetup(PostgresEndpoint db, KafkaBootstrap kafka, String name, Path dir) {
        this.db = db;
        this.kafka = kafka;
        this.name = name;
        this.offsets = dir.resolve(name + ".offsets");
    }

    /** Arguments for a relay on this test's database, slot {@code name}, prefix {@code name}. */
    public List<String> args(String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--db-url",
                                db.jdbcUrl(),
                                "--db-user",
                                db.user(),
                                "--slot",
                                name,
                                "--topic-prefix",
                                name,
                                "--partitions",
                                "3",
                                "--kafka-bootstrap",
                                kafka.servers(),
                                "--kafka-timeout",
                                "10s",
                                "--offsets-file",
                                offsets.toString(),
                                "--health-interval",
                                "5s"));
        args.addAll(Arrays.asList(extra));
        return args;
    }

    public String[] argsArray(String... extra) {
        return args(extra).toArray(String[]::new);
    }

    /** The environment with the password, as an operator would pass it. */
    public Map<String, String> env() {
        return Map.of("EFFONCE_PG_PASSWORD", db.password());
    }

    public String topic() {
        return name + ".public.payments";
    }

    public String slot() {
        return name;
    }

    /** Whether the slot is being streamed from now. */
    public boolean slotActive() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "SELECT active FROM pg_replication_slots WHERE slot_name = '"
                                        + name
                                        + "'")) {
            return rs.next() && rs.getBoolean(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Drops the slot once nothing streams from it, so WAL is not kept for a finished test. */
    public void dropSlot() {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                            + " WHERE slot_name = '"
                            + name
                            + "' AND NOT active");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
