package io.effonce.cluster;

import java.util.List;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointStatistics.CompletedCheckpointStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatistics.RestoredCheckpointStatistics;

/**
 * A job's checkpoint statistics from {@code GET /jobs/:id/checkpoints}.
 *
 * @param completed completed checkpoints (and savepoints) since the job was submitted
 * @param failed failed checkpoints
 * @param inProgress checkpoints in progress right now
 * @param restored how many times the job restored from a checkpoint
 * @param latestCompletedId id of the latest completed checkpoint, or -1
 * @param latestCompletedPath its external path, or {@code null}
 * @param latestRestoredId id of the checkpoint the job last restored from, or -1
 * @param latestRestoredPath its external path, or {@code null}
 * @param latestRestoredIsSavepoint whether that was a savepoint
 */
public record CheckpointStats(
        long completed,
        long failed,
        long inProgress,
        long restored,
        long latestCompletedId,
        String latestCompletedPath,
        long latestRestoredId,
        String latestRestoredPath,
        boolean latestRestoredIsSavepoint) {

    /** True when a checkpoint has been triggered and is neither completed nor failed. */
    public boolean checkpointInProgress() {
        return inProgress > 0;
    }

    /** True when the job (this attempt or an earlier one) restored from a checkpoint. */
    public boolean hasRestored() {
        return latestRestoredId >= 0;
    }

    /** The statistics as Flink's REST API answers them ({@code CheckpointingStatisticsHeaders}). */
    static CheckpointStats of(CheckpointingStatistics stats) {
        CheckpointingStatistics.Counts counts = stats.getCounts();
        CheckpointingStatistics.LatestCheckpoints latest = stats.getLatestCheckpoints();
        CompletedCheckpointStatistics completed =
                latest == null ? null : latest.getCompletedCheckpointStatistics();
        RestoredCheckpointStatistics restored =
                latest == null ? null : latest.getRestoredCheckpointStatistics();
        return new CheckpointStats(
                counts.getNumberCompletedCheckpoints(),
                counts.getNumberFailedCheckpoints(),
                counts.getNumberInProgressCheckpoints(),
                counts.getNumberRestoredCheckpoints(),
                completed == null ? -1 : completed.getId(),
                completed == null ? null : completed.getExternalPath(),
                restored == null ? -1 : restored.getId(),
                restored == null ? null : restored.getExternalPath(),
                restored != null && restored.isSavepoint());
    }

    /** In-progress checkpoint ids from the statistics' history (most recent first). */
    static List<Long> inProgressIds(CheckpointingStatistics stats) {
        List<CheckpointStatistics> history = stats.getHistory();
        if (history == null) {
            return List.of();
        }
        return history.stream()
                .filter(c -> c.getStatus() == CheckpointStatsStatus.IN_PROGRESS)
                .map(CheckpointStatistics::getId)
                .toList();
    }
}
