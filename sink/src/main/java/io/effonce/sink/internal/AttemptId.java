package io.effonce.sink.internal;

import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * Which task attempt, as Flink deployed it: what a {@link Claim} says of the attempt asking for a
 * range, and what the fence records of a {@link RangeOwner}. Rows written before the fence recorded
 * attempts (an upgraded table) carry {@link RangeOwner#UNKNOWN} in the numeric fields.
 *
 * @param run {@code <job id>/<run id>}: the run id is made when the job graph is built, so a task
 *     restart and a JobManager failover keep it and a new deployment gets a new one
 * @param task the subtask and attempt as operators read it in logs
 * @param subtask the subtask's index
 * @param parallelism the operator's parallelism: attempt numbers only order attempts of one subtask
 *     at one parallelism
 * @param attempt Flink's attempt number of this subtask
 * @param graph the execution graph that deployed the attempt: one per JobManager leadership of the
 *     run (attempt numbers start from 0 again in a new one); empty when unknown
 */
@Internal
public record AttemptId(
        String run, String task, int subtask, int parallelism, int attempt, String graph) {

    public AttemptId {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(graph, "graph");
    }

    /** An attempt whose execution graph is not known. */
    public static AttemptId of(String run, String task, int subtask, int parallelism, int attempt) {
        return new AttemptId(run, task, subtask, parallelism, attempt, "");
    }

    /**
     * Whether the two were deployed by different execution graphs, both known: their attempt
     * numbers do not compare.
     */
    public boolean otherGraphThan(AttemptId other) {
        return !graph.isEmpty() && !other.graph.isEmpty() && !graph.equals(other.graph);
    }

    /** Whether the two are attempts of the same subtask of the same run, at one parallelism. */
    public boolean sameSubtaskAs(AttemptId other) {
        return run.equals(other.run)
                && subtask == other.subtask
                && parallelism == other.parallelism;
    }
}
