package io.effonce.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.local.LocalCli;
import io.effonce.local.cli.LocalCliTest.Result;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
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
        Result workload =
                LocalCliTest.run(
                        env, "workload", "--count", "3000", "--clock-step", "PT60S", "--seed", "3");
        assertThat(workload.code()).as(workload.err()).isZero();
        assertThat(workload.out()).contains("3,000 rows created");

        // Nothing in the sink yet: every ledger key is missing, and the exit code says so.
        Result before = LocalCliTest.run(env, "oracle");
        assertThat(before.code()).isEqualTo(LocalCli.DIFFERENCES);
        assertThat(before.out()).contains("missing m1 2025-01-0");

        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute(
                    "INSERT INTO merchant_daily_totals (merchant_id, day, currency, total_minor,"
                            + " payments, barrier_tag, key_group)"
                            + " SELECT merchant_id, (updated_at AT TIME ZONE 'UTC')::date, currency,"
                            + " sum(amount), count(*), 1, 0 FROM payments WHERE state = 'SUCCEEDED'"
                            + " GROUP BY 1, 2, 3");
        }
        Result after = LocalCliTest.run(env, "oracle", "--include-late");
        assertThat(after.code()).as(after.out()).isZero();
        assertThat(after.out()).containsPattern("[0-9,]+ merchant-days, 0 differences");
    }
}
