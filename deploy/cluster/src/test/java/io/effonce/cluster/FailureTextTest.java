package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailureTextTest {

    @Test
    void theInnermostWrapperThatAddsToTheRootCauseIsTheLine() {
        String trace =
                """
                org.apache.flink.runtime.JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy
                \tat org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler.handleFailure(ExecutionFailureHandler.java:180)
                Caused by: io.effonce.jdbc.TransactionFailedException: Taking key groups 0..63 on x failed (SQLSTATE 42P01): ERROR: relation "sink_fences" does not exist
                  Position: 128. The table is missing: apply deploy/sql/sink.sql.
                \tat io.effonce.jdbc.RetryingSession.inTransaction(RetryingSession.java:70)
                Caused by: org.postgresql.util.PSQLException: ERROR: relation "sink_fences" does not exist
                  Position: 128
                \tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2733)
                \t... 12 more
                """;
        assertThat(FailureText.rootMessage(trace))
                .isEqualTo(
                        "Taking key groups 0..63 on x failed (SQLSTATE 42P01): ERROR: relation"
                                + " \"sink_fences\" does not exist Position: 128. The table is"
                                + " missing: apply deploy/sql/sink.sql.");
    }

    @Test
    void aCauseWithoutStackTraceIsItsOwnLine() {
        String trace =
                """
                org.apache.flink.runtime.rest.handler.RestHandlerException: Could not execute application.
                \tat org.apache.flink.runtime.webmonitor.handlers.JarRunHandler.lambda$handleRequest$1(JarRunHandler.java:123)
                Caused by: org.apache.flink.client.program.ProgramInvocationException: The main method caused an error: --postgres.url is required
                \tat org.apache.flink.client.program.PackagedProgram.callMainMethod(PackagedProgram.java:373)
                Caused by: io.effonce.job.JobStartupException: --postgres.url is required
                """;
        assertThat(FailureText.rootMessage(trace)).isEqualTo("--postgres.url is required");
    }

    @Test
    void theEndOfTheRestAnswersErrorListIsNotPartOfTheMessage() {
        String trace =
                """
                [org.apache.flink.runtime.rest.handler.RestHandlerException: Could not execute application.
                \tat org.apache.flink.runtime.webmonitor.handlers.JarRunHandler.lambda$handleRequest$1(JarRunHandler.java:123)
                Caused by: io.effonce.job.JobStartupException: The topic t does not exist at k:9092: start the relay first.
                ]
                """;
        assertThat(FailureText.rootMessage(trace))
                .isEqualTo("The topic t does not exist at k:9092: start the relay first.");
    }
}
