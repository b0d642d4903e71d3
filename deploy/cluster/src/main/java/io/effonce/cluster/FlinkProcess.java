package io.effonce.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One OS process of a {@link LocalFlinkCluster} — a JobManager, a TaskManager, or the ZooKeeper
 * server of a high-availability cluster — started by this JVM or found again from the cluster's
 * state file by a later command.
 */
public final class FlinkProcess {

    private static final Logger LOG = LoggerFactory.getLogger(FlinkProcess.class);

    /** What the process runs, in the order the cluster starts them (it stops them in reverse). */
    public enum Role {
        ZOOKEEPER,
        JOBMANAGER,
        TASKMANAGER
    }

    private final Role role;
    private final int index;
    private final ProcessHandle handle;
    private final Path logFile;
    private final int port;

    FlinkProcess(Role role, int index, ProcessHandle handle, Path logFile, int port) {
        this.role = role;
        this.index = index;
        this.handle = handle;
        this.logFile = logFile;
        this.port = port;
    }

    public Role role() {
        return role;
    }

    /**
     * The process's number among its role: a TaskManager's resource id is {@code tm-<index>}; the
     * first JobManager is 0, each standby started later the next number.
     */
    public int index() {
        return index;
    }

    /**
     * "jobmanager" (the first), "jobmanager-<index>", "taskmanager-<index>" or "zookeeper", also
     * the name of its log files.
     */
    public String name() {
        return name(role, index);
    }

    /** A JobManager's REST port, the ZooKeeper server's client port; 0 for a TaskManager. */
    public int port() {
        return port;
    }

    /** The TaskManager's Flink resource id, {@code tm-<index>}. */
    public String resourceId() {
        return resourceId(index);
    }

    public long pid() {
        return handle.pid();
    }

    public boolean isAlive() {
        return handle.isAlive();
    }

    /** The process's log4j file; its stdout and stderr are in the same name with ".out". */
    public Path logFile() {
        return logFile;
    }

    /** Kills the process with SIGKILL ({@code kill -9}) and waits until it is gone. */
    public void kill() {
        LOG.info("Killing {} (pid {}) with SIGKILL", name(), pid());
        handle.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /**
     * Freezes the process with SIGSTOP, as a long GC pause, a frozen VM or a stopped container
     * does: it keeps its sockets and its state and does nothing until {@link #resume()}.
     */
    public void pause() {
        LOG.info("Pausing {} (pid {}) with SIGSTOP", name(), pid());
        signal("STOP");
    }

    /** Lets a paused process go on (SIGCONT), unaware that time passed. */
    public void resume() {
        LOG.info("Resuming {} (pid {}) with SIGCONT", name(), pid());
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).start();
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException(
                        "kill -" + name + " " + pid() + " failed for " + name());
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("Cannot send SIG" + name + " to " + name(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Asks the process to stop (SIGTERM); kills it when it is still there after {@code grace}. */
    public void stop(Duration grace) {
        if (!handle.isAlive()) {
            return;
        }
        handle.destroy();
        if (!awaitExit(grace)) {
            LOG.warn("{} (pid {}) did not stop within {}; killing it", name(), pid(), grace);
            kill();
        }
    }

    /** Waits for the process to end; true when it did within the timeout. */
    public boolean awaitExit(Duration timeout) {
        try {
            handle.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !handle.isAlive();
        }
    }

    @Override
    public String toString() {
        return name() + "(pid " + pid() + (isAlive() ? ")" : ", gone)");
    }

    static String name(Role role, int index) {
        return switch (role) {
            case ZOOKEEPER -> "zookeeper";
            case JOBMANAGER -> index == 0 ? "jobmanager" : "jobmanager-" + index;
            case TASKMANAGER -> "taskmanager-" + index;
        };
    }

    /** The role of a process named by {@link #name()}. */
    static Role roleOf(String name) {
        if (name.equals("zookeeper")) {
            return Role.ZOOKEEPER;
        }
        return name.startsWith("jobmanager") ? Role.JOBMANAGER : Role.TASKMANAGER;
    }

    /** The index of a process named by {@link #name()}. */
    static int indexOf(String name) {
        int dash = name.lastIndexOf('-');
        return dash < 0 ? 0 : Integer.parseInt(name.substring(dash + 1));
    }

    static String resourceId(int index) {
        return "tm-" + index;
    }

    /**
     * The live process with this pid if its command line carries {@code marker} (guards against a
     * reused pid after the cluster's processes are gone). The launcher puts the marker first, as
     * the JDK shows only the first 4 KiB of a command line.
     */
    static Optional<ProcessHandle> find(long pid, String marker) {
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(
                        h ->
                                h.info()
                                        .commandLine()
                                        .map(c -> c.contains(marker + " "))
                                        .orElse(false));
    }
}
