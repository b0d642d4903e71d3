package io.effonce.it.testutils;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cluster.JobSubmission;
import io.effonce.sink.testutils.DelegatingStore;
import io.effonce.testing.PostgresEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

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
        return submission(jar, db, kafka, topic, dir);
    }

    /**
     * The same, from a copy of the shaded jar under {@code dir} to which the entry classes in this
     * module's package {@code io.effonce.job} are added, with the stores they use ({@link
     * StoreFaults}, {@link TakeoverHolds}): the soak's job, a bad release and the job with a rule
     * switched off, which the soak submits by entry class.
     */
    public static JobSubmission withTestEntries(
            PostgresEndpoint db, String kafka, String topic, Path dir) {
        Path jar = dir.resolve("effonce-job-with-test-entries.jar");
        try {
            Files.createDirectories(dir);
            Files.copy(Path.of(System.getProperty("effonce.job.jar")), jar);
            Path testClasses =
                    Path.of(
                            StoreFaults.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
            try (FileSystem zip = FileSystems.newFileSystem(jar)) {
                addClasses(testClasses, "io/effonce/job", List.of(""), zip);
                addClasses(
                        testClasses,
                        "io/effonce/it/testutils",
                        List.of("StoreFaults", "TakeoverHolds"),
                        zip);
                addClasses(
                        testClasses, "io/effonce/sink/internal", List.of("StalenessIgnored"), zip);
                addSinkTestClasses(zip);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return submission(jar, db, kafka, topic, dir);
    }

    /**
     * The sink's store decorators the stores above extend, from the sink's test-jar (or its test
     * classes, in a reactor build).
     */
    private static void addSinkTestClasses(FileSystem zip) throws IOException, URISyntaxException {
        Path location =
                Path.of(
                        DelegatingStore.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI());
        List<String> names = List.of("DelegatingStore", "IgnoringDeletes");
        if (Files.isDirectory(location)) {
            addClasses(location, "io/effonce/sink/testutils", names, zip);
            return;
        }
        try (FileSystem testJar = FileSystems.newFileSystem(location)) {
            addClasses(testJar.getPath("/"), "io/effonce/sink/testutils", names, zip);
        }
    }

    private static void addClasses(Path classes, String pkg, List<String> prefixes, FileSystem zip)
            throws IOException {
        try (Stream<Path> files = Files.list(classes.resolve(pkg))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (prefixes.stream().anyMatch(name::startsWith) && name.endsWith(".class")) {
                    Path to = zip.getPath(pkg, name);
                    Files.createDirectories(to.getParent());
                    Files.copy(file, to);
                }
            }
        }
    }

    private static JobSubmission submission(
            Path jar, PostgresEndpoint db, String kafka, String topic, Path dir) {
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
