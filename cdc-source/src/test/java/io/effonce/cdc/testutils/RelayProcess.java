package io.effonce.cdc.testutils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code LedgerRelay.main} in a child JVM with this test's class path, so a test can kill it the
 * way an operating system would ({@link #kill()} is SIGKILL: no shutdown hook, no offset commit).
 * Its output goes to a log file under {@code target/}.
 */
public final class RelayProcess implements AutoCloseable {

    private final Process process;
    private final Path log;

    private RelayProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts {@code LedgerRelay.main(args)} with {@code env} added to this environment. */
    public static RelayProcess start(List<String> args, Map<String, String> env, Path log)
            throws IOException {
        String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xmx512m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.effonce.cdc.LedgerRelay");
        command.addAll(args);
        Files.createDirectories(log.getParent());
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        pb.environment().putAll(env);
        return new RelayProcess(pb.start(), log);
    }

    /** SIGKILL: the relay gets no chance to commit anything. Returns the exit code. */
    public int kill() throws InterruptedException {
        process.destroyForcibly();
        return process.waitFor();
    }

    /** SIGTERM: the shutdown hook stops the engine cleanly. Returns the exit code. */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            return kill();
        }
        return process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself and returns its exit code. */
    public int waitFor(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The relay process still runs after " + seconds + " s");
        }
        return process.exitValue();
    }

    public String output() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
