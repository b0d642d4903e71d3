package io.effonce.it.testutils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A test's working directory under {@code target/it-work/<name>} (checkpoints, savepoints, relay
 * offsets, cluster logs), emptied when the test starts and kept afterwards for a look at a failure.
 * Flink may still be writing a checkpoint when a test ends, so a JUnit temporary directory would
 * fail its cleanup.
 */
public final class WorkDirs {

    private WorkDirs() {}

    public static Path fresh(String name) {
        Path dir = Path.of("target", "it-work", name).toAbsolutePath();
        try {
            if (Files.exists(dir)) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
