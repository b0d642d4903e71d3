package io.effonce.it.testutils;

import io.effonce.cluster.FlinkProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * One TaskManager frozen mid-checkpoint and woken up after the job moved on: its recovery in the
 * chaos report, the process, and where its log stood when it woke, so a test can read what it did
 * afterwards.
 *
 * @param logOffset the size of its log file when it was resumed
 */
public record TaskManagerPause(ChaosReport.Recovery recovery, FlinkProcess victim, long logOffset) {

    /** What the woken TaskManager logged after it was resumed. */
    public String logSinceResume() {
        try {
            byte[] all = Files.readAllBytes(victim.logFile());
            int from = (int) Math.min(logOffset, all.length);
            return new String(all, from, all.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
