package io.effonce.sink.internal;

import java.util.regex.Pattern;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;

/**
 * The execution graph that deployed a task attempt: one per JobManager leadership of a job, so
 * attempts of different ones cannot be ordered by their attempt numbers (docs/flushable-sink.md,
 * "The start as a plan"). Flink gives an attempt its id with the graph's id in it but no accessor,
 * so it is read from the id's text, {@code <graph>_<vertex>_<subtask>_<attempt>}; {@code
 * ExecutionGraphOfTest} pins that form on the Flink this project builds with.
 */
final class ExecutionGraphOf {

    private static final Pattern GRAPH = Pattern.compile("[0-9a-f]{32}");

    private ExecutionGraphOf() {}

    /** The graph's id, or empty when the attempt id does not have the expected form. */
    static String attempt(ExecutionAttemptID attempt) {
        String text = attempt.toString();
        int end = text.indexOf('_');
        String graph = end < 0 ? "" : text.substring(0, end);
        return GRAPH.matcher(graph).matches() ? graph : "";
    }
}
