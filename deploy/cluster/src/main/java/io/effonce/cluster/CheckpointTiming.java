package io.effonce.cluster;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.rest.messages.EmptyRequestBody;
import org.apache.flink.runtime.rest.messages.JobVertexIdPathParameter;
import org.apache.flink.runtime.rest.messages.MessagePathParameter;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointIdPathParameter;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointMessageParameters;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointStatisticDetailsHeaders;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.TaskCheckpointMessageParameters;
import org.apache.flink.runtime.rest.messages.checkpoints.TaskCheckpointStatisticsHeaders;
import org.apache.flink.runtime.rest.messages.checkpoints.TaskCheckpointStatisticsWithSubtaskDetails;

/**
 * When one checkpoint was triggered and last acknowledged, and the slowest subtask's parts of it
 * (over every vertex), from {@code GET /jobs/:id/checkpoints/details/:cid} and its per-vertex
 * details. Flink keeps the last {@code web.checkpoints.history} checkpoints' statistics.
 *
 * @param startDelayMillis the longest wait of a subtask for the first barrier after the trigger
 * @param alignmentMillis the longest barrier alignment
 * @param syncMillis the longest synchronous part of a snapshot (what runs before the barrier goes
 *     on, {@code prepareSnapshotPreBarrier}, is not in it)
 * @param asyncMillis the longest asynchronous part
 */
public record CheckpointTiming(
        long id,
        long triggeredAt,
        long lastAckAt,
        long startDelayMillis,
        long alignmentMillis,
        long syncMillis,
        long asyncMillis) {

    static CheckpointTiming of(RestCalls calls, String jobId, long checkpointId) {
        JobID job = JobID.fromHexString(jobId);
        CheckpointStatisticDetailsHeaders headers = CheckpointStatisticDetailsHeaders.getInstance();
        CheckpointMessageParameters params = headers.getUnresolvedMessageParameters();
        resolve(params, job, checkpointId);
        CheckpointStatistics stats = calls.send(headers, params, EmptyRequestBody.getInstance());
        long startDelay = 0;
        long alignment = 0;
        long sync = 0;
        long async = 0;
        for (JobVertexID vertex : stats.getCheckpointStatisticsPerTask().keySet()) {
            TaskCheckpointStatisticsHeaders taskHeaders =
                    TaskCheckpointStatisticsHeaders.getInstance();
            TaskCheckpointMessageParameters taskParams =
                    taskHeaders.getUnresolvedMessageParameters();
            resolve(taskParams, job, checkpointId);
            for (MessagePathParameter<?> p : taskParams.getPathParameters()) {
                if (p instanceof JobVertexIdPathParameter v) {
                    v.resolve(vertex);
                }
            }
            TaskCheckpointStatisticsWithSubtaskDetails.Summary summary =
                    calls.send(taskHeaders, taskParams, EmptyRequestBody.getInstance())
                            .getSummary();
            startDelay = Math.max(startDelay, summary.getCheckpointStartDelay().getMaximum());
            alignment =
                    Math.max(
                            alignment, summary.getCheckpointAlignment().getDuration().getMaximum());
            sync =
                    Math.max(
                            sync,
                            summary.getCheckpointDuration().getSynchronousDuration().getMaximum());
            async =
                    Math.max(
                            async,
                            summary.getCheckpointDuration().getAsynchronousDuration().getMaximum());
        }
        return new CheckpointTiming(
                checkpointId,
                stats.getTriggerTimestamp(),
                stats.getLatestAckTimestamp(),
                startDelay,
                alignment,
                sync,
                async);
    }

    /** The id parameters are protected fields; the list of path parameters is public. */
    private static void resolve(CheckpointMessageParameters params, JobID job, long checkpointId) {
        for (MessagePathParameter<?> p : params.getPathParameters()) {
            if (p instanceof CheckpointIdPathParameter id) {
                id.resolve(checkpointId);
            }
        }
        params.jobPathParameter.resolve(job);
    }
}
