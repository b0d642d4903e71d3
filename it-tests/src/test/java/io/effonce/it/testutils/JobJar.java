package io.effonce.it.testutils;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cluster.JobSubmission;
import io.effonce.testing.PostgresEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shaded job jar as users submit it to a cluster, over the relay's topic and the test's
 * PostgreSQL, parallelism 2; the sink's password in a file under {@code dir}, never on the command
 * line. The server ends a silent sink transaction after 5 s (the sink's default is 20 s), so a
 * TaskManager that is cut from PostgreSQL or paused mid-transaction releases its key groups to the
 * restored attempt sooner; the protocol is the same at any bound.
 */
public final class JobJar {

    private JobJar() {}

    public static JobSubmission submission(
            PostgresEndpoint db, String kafka, String topic, Path dir) {
        Path jar = Path.of(System.getProperty("effonce.job.jar"));
        assertThat(jar).exists();
        Path password;
        try {
            Files.createDirectories(dir);
            password = Files.createTempFile(dir, "pg", ".password");
            Files.writeString(password, db.password());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return JobSubmission.ledgerJob(
                        jar,
                        kafka,
                        topic,
                        db.jdbcUrl(),
                        db.user(),
                        password,
                        "--kafka.group-id",
                        topic,
                        "--sink.idle-in-transaction-timeout",
                        "5 s")
                .withParallelism(2);
    }
}
