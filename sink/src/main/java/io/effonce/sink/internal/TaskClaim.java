package io.effonce.sink.internal;

import java.util.OptionalLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/** What a running sink task claims: its key-group range, as the attempt Flink deployed. */
final class TaskClaim {

    private TaskClaim() {}

    /** The key groups Flink assigns to this subtask. */
    static KeyGroupSpan span(TaskInfo task) {
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        task.getMaxNumberOfParallelSubtasks(),
                        task.getNumberOfParallelSubtasks(),
                        task.getIndexOfThisSubtask());
        return new KeyGroupSpan(range.getStartKeyGroup(), range.getEndKeyGroup());
    }

    /**
     * The claim of this attempt at its start. The job id alone cannot tell a restart from a new
     * deployment: with HA in application mode every deployment has the job id
     * 00000000000000000000000000000000, so the run id goes with it.
     */
    static Claim atStart(
            JobID job,
            String runId,
            TaskInfo task,
            ExecutionAttemptID execution,
            OptionalLong restoredCheckpoint,
            RunLineage restoredLineage,
            OptionalLong restoredStagedFrom) {
        AttemptId id =
                new AttemptId(
                        job + "/" + runId,
                        task.getTaskNameWithSubtasks() + " attempt " + task.getAttemptNumber(),
                        task.getIndexOfThisSubtask(),
                        task.getNumberOfParallelSubtasks(),
                        task.getAttemptNumber(),
                        ExecutionGraphOf.attempt(execution));
        return new Claim(
                id,
                task.getMaxNumberOfParallelSubtasks(),
                restoredCheckpoint,
                OptionalLong.empty(),
                restoredLineage,
                restoredStagedFrom);
    }
}
