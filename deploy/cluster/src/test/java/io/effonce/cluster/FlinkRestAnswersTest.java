package io.effonce.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.flink.runtime.rest.handler.async.AsynchronousOperationResult;
import org.apache.flink.runtime.rest.messages.MessageHeaders;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatisticsHeaders;
import org.apache.flink.runtime.rest.messages.job.JobDetailsHeaders;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointInfo;
import org.apache.flink.runtime.rest.messages.job.savepoints.SavepointStatusHeaders;
import org.apache.flink.runtime.rest.util.RestMapperUtils;
import org.apache.flink.runtime.webmonitor.handlers.JarRunRequestBody;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JavaType;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;

/**
 * What the control code reads from Flink's REST answers and writes into its requests. The answers
 * in {@code rest/} were written by a Flink 2.2 JobManager of this cluster (the counting test job:
 * fresh, after {@code kill -9} of its TaskManager, after a rescale through a savepoint); they are
 * read here as {@code RestClient} reads them, with Flink's strict mapper into Flink's message
 * classes.
 */
class FlinkRestAnswersTest {

    private static final ObjectMapper MAPPER = RestMapperUtils.getStrictObjectMapper();

    @Test
    void aFreshJobHasNeitherACompletedNorARestoredCheckpoint() throws IOException {
        CheckpointingStatistics answer =
                read(CheckpointingStatisticsHeaders.getInstance(), "fresh.json");

        CheckpointStats stats = CheckpointStats.of(answer);

        assertThat(stats.completed()).isZero();
        assertThat(stats.latestCompletedId()).isEqualTo(-1);
        assertThat(stats.latestCompletedPath()).isNull();
        assertThat(stats.hasRestored()).isFalse();
        assertThat(stats.checkpointInProgress()).isFalse();
        assertThat(CheckpointStats.inProgressIds(answer)).isEmpty();
    }

    @Test
    void afterAKillTheStatisticsNameTheRestoredCheckpointAndTheOneInProgress() throws IOException {
        // restored from chk-43 after kill -9; 46 completed since, 47 in flight
        CheckpointingStatistics answer =
                read(CheckpointingStatisticsHeaders.getInstance(), "restored-in-progress.json");

        CheckpointStats stats = CheckpointStats.of(answer);

        assertThat(stats.restored()).isEqualTo(1);
        assertThat(stats.latestRestoredId()).isEqualTo(43);
        assertThat(stats.latestRestoredPath()).endsWith("/chk-43");
        assertThat(stats.latestRestoredIsSavepoint()).isFalse();
        assertThat(stats.completed()).isEqualTo(46);
        assertThat(stats.failed()).isZero();
        assertThat(stats.latestCompletedId()).isEqualTo(46);
        assertThat(stats.latestCompletedPath()).endsWith("/chk-46");
        assertThat(stats.checkpointInProgress()).isTrue();
        assertThat(CheckpointStats.inProgressIds(answer)).containsExactly(47L);
    }

    @Test
    void aJobResubmittedFromASavepointRestoredFromASavepoint() throws IOException {
        CheckpointStats stats =
                CheckpointStats.of(
                        read(CheckpointingStatisticsHeaders.getInstance(), "from-savepoint.json"));

        assertThat(stats.latestRestoredIsSavepoint()).isTrue();
        assertThat(stats.latestRestoredId()).isEqualTo(58);
        assertThat(stats.latestRestoredPath()).contains("/savepoints/savepoint-");
        assertThat(stats.latestCompletedId()).isEqualTo(-1);
    }

    @Test
    void aSavepointHasNoLocationWhileInProgressAndItsPathOnceCompleted() throws IOException {
        assertThat(
                        FlinkRestClient.savepointLocation(
                                "job", "trigger", AsynchronousOperationResult.inProgress()))
                .isNull();

        AsynchronousOperationResult<SavepointInfo> completed =
                read(SavepointStatusHeaders.getInstance(), "savepoint-completed.json");

        assertThat(FlinkRestClient.savepointLocation("job", "trigger", completed))
                .isEqualTo("file:/tmp/flink-local/savepoints/savepoint-618875-81b708d4e8b8");
    }

    @Test
    void aFailedSavepointThrowsWithFlinksCause() {
        AsynchronousOperationResult<SavepointInfo> failed =
                AsynchronousOperationResult.completed(
                        new SavepointInfo(
                                null, new SerializedThrowable(new IOException("disk full"))));

        assertThatThrownBy(() -> FlinkRestClient.savepointLocation("job", "trigger", failed))
                .isInstanceOf(FlinkRestException.class)
                .hasMessageContaining("Savepoint trigger of job job failed")
                .hasMessageContaining("disk full");
    }

    @Test
    void allTasksRunningNeedsEveryTaskOfEveryVertexRunning() throws IOException {
        String running = text("job-details.json");
        assertThat(FlinkJobs.allTasksRunning(jobDetails(running))).isTrue();

        // the first vertex's only task still deploying, the job already RUNNING
        String deploying =
                running.replaceFirst("\"RUNNING\":1,", "\"RUNNING\":0,")
                        .replaceFirst("\"DEPLOYING\":0,", "\"DEPLOYING\":1,");
        assertThat(FlinkJobs.allTasksRunning(jobDetails(deploying))).isFalse();
    }

    @Test
    void aRunRequestLeavesParallelismAndRestoreToTheClusterUnlessGiven() throws IOException {
        Path jar = Path.of("job.jar");
        JarRunRequestBody fresh =
                roundTrip(FlinkRestClient.runRequest(JobSubmission.of(jar, "a.B", "--x", "q\"")));

        assertThat(fresh.getEntryClassName()).isEqualTo("a.B");
        assertThat(fresh.getProgramArgumentsList()).containsExactly("--x", "q\"");
        assertThat(fresh.getParallelism()).isNull();
        assertThat(fresh.getSavepointPath()).isNull();
        assertThat(fresh.getAllowNonRestoredState()).isNull();

        JarRunRequestBody restore =
                roundTrip(
                        FlinkRestClient.runRequest(
                                JobSubmission.of(jar, "a.B")
                                        .withParallelism(2)
                                        .fromSavepoint("file:/sp/savepoint-1")
                                        .allowNonRestoredState(true)));

        assertThat(restore.getParallelism()).isEqualTo(2);
        assertThat(restore.getSavepointPath()).isEqualTo("file:/sp/savepoint-1");
        assertThat(restore.getAllowNonRestoredState()).isTrue();
    }

    /** The request as the JobManager's handler reads it. */
    private static JarRunRequestBody roundTrip(JarRunRequestBody request) throws IOException {
        return MAPPER.readValue(MAPPER.writeValueAsString(request), JarRunRequestBody.class);
    }

    private static JobDetailsInfo jobDetails(String json) throws IOException {
        return MAPPER.readValue(json, responseType(JobDetailsHeaders.getInstance()));
    }

    /** Reads an answer into the headers' response type, as Flink's {@code RestClient} does. */
    private static <P> P read(MessageHeaders<?, ?, ?> headers, String sample) throws IOException {
        return MAPPER.readValue(text(sample), responseType(headers));
    }

    private static JavaType responseType(MessageHeaders<?, ?, ?> headers) {
        Class<?>[] parameters = headers.getResponseTypeParameters().toArray(new Class<?>[0]);
        return parameters.length == 0
                ? MAPPER.constructType(headers.getResponseClass())
                : MAPPER.getTypeFactory()
                        .constructParametricType(headers.getResponseClass(), parameters);
    }

    private static String text(String sample) throws IOException {
        try (InputStream in = FlinkRestAnswersTest.class.getResourceAsStream("rest/" + sample)) {
            assertThat(in).as("test resource rest/%s", sample).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
