package io.effonce.cdc.testutils;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.RelayCli;
import io.effonce.testing.ChildJvm;
import io.effonce.testing.PostgresEndpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The ledger relay of one test: its own slot, topic prefix and offsets file, run in this JVM
 * ({@link #start}) or as a child JVM that can be killed the way an operating system would ({@link
 * #startProcess}). Heartbeats are off unless asked for, so a workload with event times in the past
 * is never made late by wall-clock heartbeats. The relay's own tests and the end-to-end tests share
 * it (cdc-source's test-jar).
 */
public final class Relays {

    private final PostgresEndpoint db;
    private final String kafka;
    private final String name;
    private final Path offsets;

    /**
     * @param name slot name and topic prefix; slots are server-wide, so unique per test
     */
    public Relays(PostgresEndpoint db, String kafka, String name, Path dir) {
        this.db = db;
        this.kafka = kafka;
        this.name = name;
        this.offsets = dir.resolve(name + ".offsets");
    }

    /** The change topic, {@code <name>.public.payments}. */
    public String topic() {
        return name + ".public.payments";
    }

    /** Command-line arguments of this relay, heartbeats off, plus {@code extra}. */
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
                                "2",
                                "--kafka-bootstrap",
                                kafka,
                                "--kafka-timeout",
                                "20s",
                                "--offsets-file",
                                offsets.toString(),
                                "--offset-flush-interval",
                                "500ms",
                                "--health-interval",
                                "10s"));
        if (!Arrays.asList(extra).contains("--heartbeat-interval")) {
            args.addAll(List.of("--heartbeat-interval", "0"));
        }
        args.addAll(Arrays.asList(extra));
        return args;
    }

    /** Starts the relay in this JVM; returns once its slot exists. */
    public LedgerRelay start(String... extra) {
        return LedgerRelay.start(RelayCli.parse(args(extra).toArray(String[]::new), env()));
    }

    /** The same arguments as an array, as a main receives them. */
    public String[] argsArray(String... extra) {
        return args(extra).toArray(String[]::new);
    }

    /** Starts {@code LedgerRelay.main} in a child JVM, its output in {@code log}. */
    public ChildJvm startProcess(Path log, String... extra) throws IOException {
        return ChildJvm.start(LedgerRelay.class.getName(), args(extra), env(), log);
    }

    /** The environment with the password, as an operator would pass it. */
    public Map<String, String> env() {
        return Map.of("EFFONCE_PG_PASSWORD", db.password());
    }

    /** Whether a relay streams from the slot now. */
    public boolean slotActive() {
        return query("SELECT active FROM pg_replication_slots WHERE slot_name = '" + name + "'");
    }

    /** Drops the slot once nothing streams from it, so the server keeps no WAL for it. */
    public void dropSlot() {
        query(
                "SELECT pg_drop_replication_slot(slot_name) IS NULL FROM pg_replication_slots"
                        + " WHERE slot_name = '"
                        + name
                        + "' AND NOT active");
    }

    private boolean query(String sql) {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() && rs.getBoolean(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
