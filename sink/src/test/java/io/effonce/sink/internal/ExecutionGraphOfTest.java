package io.effonce.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.junit.jupiter.api.Test;

/** The attempt id's text carries its graph's id first, on the Flink this project builds with. */
class ExecutionGraphOfTest {

    @Test
    void theGraphIsReadFromTheAttemptsId() {
        ExecutionGraphID graph = new ExecutionGraphID();
        ExecutionAttemptID attempt =
                new ExecutionAttemptID(graph, new ExecutionVertexID(new JobVertexID(), 3), 7);
        assertThat(ExecutionGraphOf.attempt(attempt)).isEqualTo(graph.toString());
    }

    @Test
    void attemptsOfTwoGraphsDifferAndOfOneGraphAgree() {
        ExecutionGraphID first = new ExecutionGraphID();
        ExecutionGraphID second = new ExecutionGraphID();
        JobVertexID vertex = new JobVertexID();
        String a = ExecutionGraphOf.attempt(attempt(first, vertex, 0));
        assertThat(ExecutionGraphOf.attempt(attempt(first, vertex, 5))).isEqualTo(a);
        assertThat(ExecutionGraphOf.attempt(attempt(second, vertex, 0))).isNotEqualTo(a);
    }

    private static ExecutionAttemptID attempt(ExecutionGraphID graph, JobVertexID vertex, int n) {
        return new ExecutionAttemptID(graph, new ExecutionVertexID(vertex, 0), n);
    }
}
