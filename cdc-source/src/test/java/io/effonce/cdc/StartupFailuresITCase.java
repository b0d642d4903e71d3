package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.testutils.Relays;
import io.effonce.testing.ChildJvm;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay that cannot start says why and how to fix it, and the main exits non-zero (3), for each
 * start-up failure an operator meets: wal_level not logical, no REPLICATION, the table missing,
 * Kafka unreachable, the slot held by another relay.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class StartupFailuresITCase {

    @TempDir Path dir;

    @Test
    void walLevelBelowLogicalIsExplained(KafkaBootstrap kafka) throws Exception {
        try (var replicaOnly =
                io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                        .setServerConfig("wal_level", "replica")
                        .setServerConfig("listen_addresses", "127.0.0.1")
                        .start()) {
            PostgresEndpoint db =
                    new PostgresEndpoint(
                            "jdbc:postgresql://127.0.0.1:" + replicaOnly.getPort() + "/postgres",
                            "postgres",
                            "");
            Outcome o = run(new Relays(db, kafka.servers(), "wal", dir), Map.of());
            assertThat(o.code).isEqualTo(3);
            assertThat(o.err)
                    .contains("wal_level is 'replica'")
                    .contains("ALTER SYSTEM SET wal_level = logical");
        }
    }

    @Test
    void roleWithoutReplicationIsExplained(PostgresEndpoint db, KafkaBootstrap kafka) {
        // effonce_sink is NOREPLICATION (deploy/sql/roles.sql).
        Relays setup =
                new Relays(
                        db.withPasswordFor("effonce_sink", "sink-secret"),
                        kafka.servers(),
                        "norepl",
                        dir);
        Outcome o = run(setup, setup.env());
        assertThat(o.code).isEqualTo(3);
        assertThat(o.err)
                .contains("role 'effonce_sink' has no REPLICATION privilege")
                .contains("ALTER ROLE effonce_sink REPLICATION");
    }

    @Test
    void missingTableIsExplained(PostgresEndpoint db, KafkaBootstrap kafka) {
        String otherDb = db.jdbcUrl().replaceFirst("/[^/?]+(\\?.*)?$", "/postgres");
        PostgresEndpoint postgres = new PostgresEndpoint(otherDb, db.user(), db.password());
        Relays setup = new Relays(postgres, kafka.servers(), "notable", dir);
        Outcome o = run(setup, setup.env());
        assertThat(o.code).isEqualTo(3);
        assertThat(o.err)
                .contains("table public.payments does not exist in database 'postgres'")
                .contains("deploy/sql/ledger.sql");
    }

    @Test
    void unreachableKafkaIsExplainedAndTheProcessExitsNonZero(PostgresEndpoint db)
            throws Exception {
        KafkaBootstrap nowhere = new KafkaBootstrap("127.0.0.1:" + freePort());
        Relays setup = new Relays(db, nowhere.servers(), "nokafka", dir);
        Outcome o = run(setup, setup.env(), "--kafka-timeout", "2s");
        assertThat(o.code).isEqualTo(3);
        assertThat(o.err)
                .contains("Kafka at " + nowhere.servers() + " did not answer within 2000 ms");

        // The same through a real JVM: the process exit code an operator's supervisor sees.
        try (ChildJvm p =
                setup.startProcess(
                        Path.of("target", "startup-failure-logs", "kafka.log"),
                        "--kafka-timeout",
                        "2s")) {
            assertThat(p.waitFor(300)).isEqualTo(3);
            assertThat(p.output()).contains("did not answer within 2000 ms");
        }
    }

    @Test
    void slotAlreadyActiveIsExplained(PostgresEndpoint db, KafkaBootstrap kafka) {
        Relays setup = new Relays(db, kafka.servers(), "busy", dir);
        try (LedgerRelay running =
                LedgerRelay.start(RelayCli.parse(setup.argsArray(), setup.env()))) {
            await("the relay's replication slot active")
                    .atMost(Duration.ofMinutes(5))
                    .until(setup::slotActive);
            Outcome o = run(setup, setup.env(), "--offsets-file", dir.resolve("other").toString());
            assertThat(o.code).isEqualTo(3);
            assertThat(o.err)
                    .contains("replication slot 'busy' is already active in server process")
                    .contains("stop that relay first");
            assertThat(running.isRunning()).isTrue();
        } finally {
            setup.dropSlot();
        }
    }

    @Test
    void theMainNeverPrintsThePassword(PostgresEndpoint db) {
        KafkaBootstrap nowhere = new KafkaBootstrap("127.0.0.1:" + freePort());
        Relays setup = new Relays(db, nowhere.servers(), "secret", dir);
        Outcome o = run(setup, Map.of("EFFONCE_PG_PASSWORD", "s3cr3t-pw"), "--kafka-timeout", "1s");
        assertThat(o.code).isEqualTo(3);
        assertThat(o.out + o.err).doesNotContain("s3cr3t-pw");
    }

    private record Outcome(int code, String out, String err) {}

    private static Outcome run(Relays setup, Map<String, String> env, String... extra) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                RelayCli.run(
                        setup.argsArray(extra), env, new PrintWriter(out), new PrintWriter(err));
        return new Outcome(code, out.toString(), err.toString());
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
