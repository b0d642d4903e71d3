package io.effonce.it.testutils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A reader's shell: one {@code bash} that runs block after block as a person types them, so what
 * one block exports the next sees, and a failing command ends it ({@code errexit}). Each block is
 * sourced from a file with its standard input closed, so no command can read the next one's text.
 * Output of every block goes to one log.
 */
public final class ReaderShell implements AutoCloseable {

    private static final String DONE = "__reader_shell_block_done__";

    private final Process bash;
    private final Writer input;
    private final Path log;
    private final Path blocks;
    private int ran;

    private ReaderShell(Process bash, Path log, Path blocks) {
        this.bash = bash;
        this.input = bash.outputWriter(StandardCharsets.UTF_8);
        this.log = log;
        this.blocks = blocks;
    }

    /** A shell in {@code dir} with exactly {@code env}; its output goes to {@code log}. */
    public static ReaderShell start(Path dir, Map<String, String> env, Path log) {
        try {
            Files.createDirectories(log.getParent());
            Path blocks = Files.createDirectories(log.resolveSibling("blocks"));
            ProcessBuilder builder =
                    new ProcessBuilder("bash", "-e", "-u", "-o", "pipefail", "-s")
                            .directory(dir.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile());
            builder.environment().clear();
            builder.environment().putAll(env);
            return new ReaderShell(builder.start(), log, blocks);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code script} to its end; fails with the log's tail if a command fails or hangs. */
    public void run(String script, Duration limit) {
        int number = ++ran;
        Path file = blocks.resolve("block-" + number + ".sh");
        try {
            Files.writeString(file, script);
            input.write("source " + file.toAbsolutePath() + " < /dev/null\n");
            input.write("echo " + DONE + number + "\n");
            input.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the shell is gone; its log:\n" + tail(), e);
        }
        await("block " + number + " of the reader's shell to end (" + firstLine(script) + ")")
                .atMost(limit)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> output().contains(DONE + number) || !bash.isAlive());
        assertThat(output())
                .as(
                        "block %d (%s) ended with a failing command (exit %s); the shell's log:%n%s",
                        number, firstLine(script), bash.isAlive() ? "-" : bash.exitValue(), tail())
                .contains(DONE + number);
    }

    /** Everything the shell's commands printed so far. */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String tail() {
        List<String> lines = output().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    static String firstLine(String script) {
        return script.lines().findFirst().orElse("").strip();
    }

    @Override
    public void close() throws InterruptedException {
        try {
            input.close();
        } catch (IOException e) {
            // the shell has already ended
        }
        if (!bash.waitFor(30, TimeUnit.SECONDS)) {
            bash.destroyForcibly();
        }
    }
}
