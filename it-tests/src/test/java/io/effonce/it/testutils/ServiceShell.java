package io.effonce.it.testutils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A command that a README runs "in a shell of its own" until Ctrl-C: started with {@code bash -c},
 * up once its output shows the text the README names, and stopped as Ctrl-C would (SIGTERM to the
 * command and, after its shutdown, to anything it left behind).
 */
public final class ServiceShell implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final String name;
    private final String readyAt;

    private ServiceShell(Process process, Path log, String name, String readyAt) {
        this.process = process;
        this.log = log;
        this.name = name;
        this.readyAt = readyAt;
    }

    /**
     * Starts {@code script} in {@code dir} with exactly {@code env}; {@link #awaitUp} waits until
     * it printed {@code readyAt}.
     */
    public static ServiceShell launch(
            String script, String readyAt, Path dir, Map<String, String> env, Path log) {
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder =
                    new ProcessBuilder("bash", "-c", script)
                            .directory(dir.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .redirectInput(
                                    ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            builder.environment().clear();
            builder.environment().putAll(env);
            return new ServiceShell(builder.start(), log, ReaderShell.firstLine(script), readyAt);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the service printed what says it is up; fails with its log if it ended. */
    public void awaitUp(Duration limit) {
        await("'" + name + "' to print '" + readyAt + "' (log " + log + ")")
                .atMost(limit)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> output().contains(readyAt) || !process.isAlive());
        assertThat(output())
                .as("'%s' ended before it was up; its log:%n%s", name, tail())
                .contains(readyAt);
    }

    private String output() {
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

    @Override
    public void close() throws InterruptedException {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
        for (ProcessHandle child : children) {
            child.onExit()
                    .completeOnTimeout(child, 30, TimeUnit.SECONDS)
                    .thenAccept(ProcessHandle::destroyForcibly)
                    .join();
        }
    }
}
