package io.effonce.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Ctrl-C on {@code effonce-local postgres}: the terminal interrupts the whole process group, so the
 * postmaster shuts itself down while the JVM's shutdown hook stops it too. The stop must find
 * nothing to do, say nothing, and still delete the temporary data directory.
 */
class EmbeddedPostgresCtrlCITCase {

    @Test
    void aServerInterruptedWithItsLauncherClosesQuietlyAndLeavesNoData() throws Exception {
        EmbeddedPostgres server = EmbeddedPostgres.start(0);
        Path data = server.dataDir();
        long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0));
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();

        Process interrupt = new ProcessBuilder("kill", "-INT", Long.toString(pid)).start();
        assertThat(interrupt.waitFor(30, TimeUnit.SECONDS)).as("kill -INT returned").isTrue();

        // At once, as the shutdown hook does: the delete met files the exiting postmaster removed
        // and stopped (UncheckedIOException: NoSuchFileException), leaving the directory behind.
        server.close();
        assertThat(postmaster.isAlive()).isFalse();
        assertThat(data).doesNotExist();
    }
}
