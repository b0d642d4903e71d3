package io.effonce.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A main class in a child JVM with this test's class path, so a test can kill it the way an
 * operating system would ({@link #kill()} is SIGKILL: no shutdown hook, no offset commit). Its
 * output goes to a log file under {@code target/}. The relay and the Kafka Connect worker of the
 * tests run this way.
 */
public final class ChildJvm implements AutoCloseable {

    private final String mainClass;
    private final Process process;
    private final Path log;

    private ChildJvm(String mainClass, Process process, Path log) {
        this.mainClass = mainClass;
        this.process = process;
        this.log = log;
    }

    /**
     * JVM options for a quick start: a small heap, the client compiler only, the serial collector
     * (a test's broker or relay lives minutes; C2 and G1's threads would compete for the cores).
     */
    public static final List<String> QUICK_START =
            List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /**
     * Starts {@code mainClass.main(args)} with {@link #QUICK_START} and {@code env} added to this
     * environment; a new start with the same log appends to it.
     */
    public static ChildJvm start(
            String mainClass, List<String> args, Map<String, String> env, Path log)
            throws IOException {
        return start(mainClass, QUICK_START, args, env, log);
    }

    /** The same with {@code jvmOptions} (a benchmark wants the full compiler and heap). */
    public static ChildJvm start(
            String mainClass,
            List<String> jvmOptions,
            List<String> args,
            Map<String, String> env,
            Path log)
            throws IOException {
        String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        Files.createDirectories(log.getParent());
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        return new ChildJvm(mainClass, pb.start(), log);
    }

    /** SIGKILL: the process gets no chance to commit anything. Returns the exit code. */
    public int kill() throws InterruptedException {
        process.destroyForcibly();
        return process.waitFor();
    }

    /** SIGTERM: shutdown hooks run. Returns the exit code. */
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
            throw new IllegalStateException(mainClass + " still runs after " + seconds + " s");
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
