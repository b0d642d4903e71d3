package io.effonce.cluster;

import java.util.List;
import java.util.Map;

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

    static CheckpointStats fromJson(Map<String, Object> json) {
        return new CheckpointStats(
                number(Json.at(json, "counts", "completed"), 0),
                number(Json.at(json, "counts", "failed"), 0),
                number(Json.at(json, "counts", "in_progress"), 0),
                number(Json.at(json, "counts", "restored"), 0),
                number(Json.at(json, "latest", "completed", "id"), -1),
                (String) Json.at(json, "latest", "completed", "external_path"),
                number(Json.at(json, "latest", "restored", "id"), -1),
                (String) Json.at(json, "latest", "restored", "external_path"),
                Boolean.TRUE.equals(Json.at(json, "latest", "restored", "is_savepoint")));
    }

    /** In-progress checkpoint ids from the statistics' history (most recent first). */
    static List<Long> inProgressIds(Map<String, Object> json) {
        Object history = json.get("history");
        if (!(history instanceof List<?> list)) {
            return List.of();
        }
        return list.stream()
                .filter(e -> "IN_PROGRESS".equals(Json.at(e, "status")))
                .map(e -> number(Json.at(e, "id"), -1))
                .toList();
    }

    private static long number(Object value, long otherwise) {
        return value instanceof Number n ? n.longValue() : otherwise;
    }
}
