package io.effonce.local.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.local.LocalCli;
import io.effonce.local.cli.LocalCliTest.Result;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(PostgresExtension.class)
class LocalCliITCase {

    @Test
    void schemaWorkloadAndOracleRunFromTheEnvironment(PostgresEndpoint db, @TempDir Path dir)
            throws Exception {
        Path password = Files.writeString(dir.resolve("pg-password"), db.password() + "\n");
        Map<String, String> env =
                Map.of(
                        "EFFONCE_PG_URL", db.jdbcUrl(),
                        "EFFONCE_PG_USER", db.user(),
                        "EFFONCE_PG_PASSWORD_FILE", password.toString());

        assertThat(LocalCliTest.run(env, "schema").code()).isZero();
        Result workload = workload(env, 3000);
        assertThat(workload.code()).as(workload.err()).isZero();
        assertThat(workload.out()).contains("3,000 rows created");
        assertThat(workload.err())
                .as("an old start and a fast clock are each told what a running job makes of them")
                .contains("--clock-start 2025-01-01T00:00:00Z is before now")
                .contains("event time runs ahead of real time (--clock-step PT1M)");
        assertThat(workload.err()).doesNotContain("no payment was new");
        Result again = workload(env, 20);
        assertThat(again.code()).as(again.err()).isZero();
        assertThat(again.err())
                .as("the same seed again writes nothing, and says so")
                .contains("no payment was new")
                .contains("another --seed");

        // Nothing in the sink yet: every ledger key is missing, and the exit code says so.
        Result before = LocalCliTest.run(env, "oracle");
        assertThat(before.code()).isEqualTo(LocalCli.DIFFERENCES);
        assertThat(before.out()).contains("missing m1 2025-01-0");

        assertThat(before.out()).doesNotContain("late_events");

        // Every success arrived late: the sink lacks them all, and the oracle says where they are.
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "INSERT INTO late_events (event_id, merchant_id, day, currency, amount,"
                            + " event_time) SELECT payment_id || ':SUCCEEDED', merchant_id,"
                            + " (updated_at AT TIME ZONE 'UTC')::date, currency, amount, updated_at"
                            + " FROM payments WHERE state = 'SUCCEEDED'");
        }
        Result late = LocalCliTest.run(env, "oracle");
        assertThat(late.code()).isEqualTo(LocalCli.DIFFERENCES);
        assertThat(late.out())
                .containsPattern("([0-9,]+) of these \\1 merchant-days have changes in late_events")
                .contains("--include-late");
        Result after = LocalCliTest.run(env, "oracle", "--include-late", "--await", "PT2M");
        assertThat(after.code()).as(after.out()).isZero();
        assertThat(after.out()).containsPattern("[0-9,]+ merchant-days, 0 differences");
        assertThat(after.err()).as("nothing to wait for: no waiting line").isEmpty();
    }

    @Test
    void aRolePasswordFileIsCreatedPrivateAndIsTheOnlyPasswordTheRoleAccepts(
            PostgresEndpoint db, @TempDir Path dir) throws Exception {
        Map<String, String> env =
                Map.of(
                        "EFFONCE_PG_URL", db.jdbcUrl(),
                        "EFFONCE_PG_USER", db.user(),
                        "EFFONCE_PG_PASSWORD", db.password());
        assertThat(LocalCliTest.run(env, "schema").code()).isZero();
        Path file = dir.resolve("secrets/effonce_sink.password");

        Result created = LocalCliTest.run(env, "role-password", "effonce_sink", file.toString());
        assertThat(created.code()).as(created.err()).isZero();
        assertThat(created.out()).contains("a new random password, file mode 600");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        String password = Files.readString(file).strip();
        assertThat(created.out()).doesNotContain(password);
        try (Connection c = db.as("effonce_sink", password).connect()) {
            assertThat(c.isValid(5)).isTrue();
        }

        // An existing file is used as it is: a password written by the operator.
        Files.writeString(file, "chosen-by-the-operator\n");
        assertThat(LocalCliTest.run(env, "role-password", "effonce_sink", file.toString()).code())
                .isZero();
        assertThatThrownBy(() -> db.as("effonce_sink", password).connect().close())
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("password authentication failed");
        try (Connection c = db.as("effonce_sink", "chosen-by-the-operator").connect()) {
            assertThat(c.isValid(5)).isTrue();
        }
    }

    /** {@code count} payments of seed 3 on a minute-per-payment clock from 1 January 2025. */
    private static Result workload(Map<String, String> env, int count) {
        return LocalCliTest.run(
                env,
                "workload",
                "--count",
                String.valueOf(count),
                "--clock-step",
                "PT60S",
                "--clock-start",
                "2025-01-01T00:00:00Z",
                "--seed",
                "3");
    }
}
