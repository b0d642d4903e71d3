package io.effonce.job.migrate;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;
import org.apache.flink.state.api.output.SnapshotUtils;
import org.apache.flink.state.api.output.TaggedOperatorSubtaskState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

/**
 * A bootstrap operator's state written into the new savepoint at the end of its input, as the State
 * Processor API's own bootstrap operators do.
 */
final class BootstrapSnapshot {

    private BootstrapSnapshot() {}

    static TaggedOperatorSubtaskState of(
            AbstractStreamOperator<?> operator, long checkpointId, long timestamp, Path savepoint)
            throws Exception {
        Configuration job = operator.getContainingTask().getJobConfiguration();
        return SnapshotUtils.snapshot(
                checkpointId,
                operator,
                operator.getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                timestamp,
                CheckpointingOptions.getCheckpointingMode(job),
                CheckpointingOptions.isUnalignedCheckpointEnabled(job),
                operator.getContainingTask().getConfiguration().getConfiguration(),
                savepoint);
    }
}
