package io.effonce.sink.store;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A task attempt asking for its key-group range, described as Flink deployed it. The takeover
 * compares it with what the fence and the progress rows hold, inside the takeover transaction.
 *
 * @param run {@code <job id>/<run id>}: the run id is made when the job graph is built, so a task
 *     restart and a JobManager failover keep it and a new deployment gets a new one
 * @param task the subtask and attempt as operators read it in logs
 * @param subtask the subtask's index
 * @param parallelism the operator's parallelism: attempt numbers only order attempts of one subtask
 *     at one parallelism
 * @param attempt Flink's attempt number of this subtask
 * @param restoredCheckpoint the checkpoint or savepoint the attempt restored; empty on a start
 *     without state
 */
public record Claim(
        String run,
        String task,
        int subtask,
        int parallelism,
        int attempt,
        OptionalLong restoredCheckpoint) {

    public Claim {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(restoredCheckpoint, "restoredCheckpoint");
    }

    /** The restored checkpoint, or 0 (before every checkpoint) on a start without state. */
    public long restoredOrZero() {
        return restoredCheckpoint.orElse(0L);
    }
}
