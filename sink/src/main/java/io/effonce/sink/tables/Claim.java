package io.effonce.sink.tables;

import java.util.Objects;
import java.util.OptionalLong;
import org.apache.flink.annotation.Internal;

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
 * @param graph the execution graph that deployed the attempt: one per JobManager leadership of the
 *     run (attempt numbers start from 0 again in a new one); empty when unknown
 * @param firstBarrier the first checkpoint barrier the attempt passed, when it asks for its range
 *     at that barrier instead of at its start; the checkpoint-id counter survives a JobManager
 *     failover, so a barrier of the current JobManager is newer than any barrier of an earlier one
 * @param restoredLineage the runs the restored state descends from, the last of them the one that
 *     took the restored checkpoint (which differs from {@code run} after a new deployment); {@link
 *     RunLineage#UNKNOWN} without restored state, or for a state that predates the record (then any
 *     run's commit counts as the proof it once was)
 */
@Internal
public record Claim(
        String run,
        String task,
        int subtask,
        int parallelism,
        int attempt,
        OptionalLong restoredCheckpoint,
        String graph,
        OptionalLong firstBarrier,
        RunLineage restoredLineage) {

    public Claim {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(restoredCheckpoint, "restoredCheckpoint");
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(firstBarrier, "firstBarrier");
        Objects.requireNonNull(restoredLineage, "restoredLineage");
    }

    /**
     * A claim made at the attempt's start, by an attempt whose execution graph and restored lineage
     * are not known.
     */
    public Claim(
            String run,
            String task,
            int subtask,
            int parallelism,
            int attempt,
            OptionalLong restoredCheckpoint) {
        this(
                run,
                task,
                subtask,
                parallelism,
                attempt,
                restoredCheckpoint,
                "",
                OptionalLong.empty(),
                RunLineage.UNKNOWN);
    }

    /** The same claim, made again at the attempt's first barrier {@code barrier}. */
    public Claim atFirstBarrier(long barrier) {
        return new Claim(
                run,
                task,
                subtask,
                parallelism,
                attempt,
                restoredCheckpoint,
                graph,
                OptionalLong.of(barrier),
                restoredLineage);
    }

    /** The run that took the restored checkpoint; empty when not known. */
    public String restoredRun() {
        return restoredLineage.lastRun().orElse("");
    }

    /** The lineage of this claim's run: the restored one, continued by this run. */
    public RunLineage lineage() {
        return restoredLineage.continuedBy(run, restoredOrZero());
    }

    /** The restored checkpoint, or 0 (before every checkpoint) on a start without state. */
    public long restoredOrZero() {
        return restoredCheckpoint.orElse(0L);
    }
}
