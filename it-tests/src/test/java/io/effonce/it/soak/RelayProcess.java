package io.effonce.it.soak;

import static org.awaitility.Awaitility.await;

import io.effonce.cdc.testutils.Relays;
import io.effonce.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** The soak's relay, a child JVM: killed with SIGKILL and started again from its offsets. */
final class RelayProcess implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final Relays relays;
    private final Path logs;
    private final String[] args;
    private ChildJvm process;
    private int starts;

    RelayProcess(Relays relays, Path logs, String... args) {
        this.relays = relays;
        this.logs = logs;
        this.args = args;
    }

    /** Starts the relay and returns once it streams from its slot. */
    void start() throws IOException {
        starts++;
        process = relays.startProcess(logs.resolve("relay-" + starts + ".log"), args);
        await("the relay's slot active (log " + logs.resolve("relay-" + starts + ".log") + ")")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> relays.slotActive() || !process.isAlive());
        if (!process.isAlive()) {
            throw new IllegalStateException("the relay stopped at start: " + process.output());
        }
    }

    /** SIGKILL; returns once the server released its slot. */
    void kill() throws InterruptedException {
        process.kill();
        await("the killed relay's slot released")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> !relays.slotActive());
    }

    /** Waits until the relay has stopped by itself (its stream broken, as a lost primary does). */
    void awaitExit() {
        await("the relay to stop on its broken stream")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> !process.isAlive());
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.close();
        }
    }
}
