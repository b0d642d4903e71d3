package io.effonce.bench.latency;

import io.effonce.cluster.CheckpointTiming;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * Where the time from a ledger commit to the committed row goes, row by row, split at the live
 * row's {@code written_at} and at the trigger and the last acknowledgement of the checkpoint that
 * committed the row (Flink's checkpoint statistics). The parts add up to the whole:
 *
 * <ol>
 *   <li>commit → live row: the relay, Kafka, the job, the sink's live write;
 *   <li>live row → trigger: waiting for the next checkpoint (negative when the row was written
 *       after the trigger, before the barrier reached the sink);
 *   <li>trigger → last acknowledgement: the checkpoint. Its slowest subtask's start delay,
 *       alignment, synchronous and asynchronous snapshot are shown apart, per checkpoint; the
 *       sink's write and stage before the barrier ({@code prepareSnapshotPreBarrier}, before the
 *       timed synchronous part) are in none of them, only in the whole;
 *   <li>last acknowledgement → committed row: the completion notice and the sink's commit.
 * </ol>
 *
 * <p>A row's checkpoint is the one its value was staged at ({@code checkpoint_id} of the committed
 * row). Had that checkpoint's notice been lost, a later checkpoint's commit wrote the row, and the
 * last part holds the wait for it too.
 */
final class CommittedBreakdown {

    private final List<Double> toLive = new ArrayList<>();
    private final List<Double> toTrigger = new ArrayList<>();
    private final List<Double> checkpoint = new ArrayList<>();
    private final List<Double> toCommitted = new ArrayList<>();
    private final List<Double> whole = new ArrayList<>();
    private final Map<Long, Optional<CheckpointTiming>> timings = new HashMap<>();
    private final LongFunction<CheckpointTiming> timingOf;
    private int unknown;

    /** {@code timingOf} reads a checkpoint's timing; each is asked for once. */
    CommittedBreakdown(LongFunction<CheckpointTiming> timingOf) {
        this.timingOf = timingOf;
    }

    /**
     * One row: the ledger's commit time, the live row's, the committed row's and its checkpoint.
     */
    void add(long commit, long writtenAt, long committedAt, long checkpointId) {
        Optional<CheckpointTiming> found = timings.computeIfAbsent(checkpointId, this::read);
        if (found.isEmpty()) {
            unknown++;
            return;
        }
        CheckpointTiming t = found.get();
        toLive.add((double) (writtenAt - commit));
        toTrigger.add((double) (t.triggeredAt() - writtenAt));
        checkpoint.add((double) (t.lastAckAt() - t.triggeredAt()));
        toCommitted.add((double) (committedAt - t.lastAckAt()));
        whole.add((double) (committedAt - commit));
    }

    /** Empty when Flink has no statistics of it: out of the history, or a restored checkpoint. */
    private Optional<CheckpointTiming> read(long checkpointId) {
        try {
            return Optional.of(timingOf.apply(checkpointId));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    List<String> lines() {
        List<Double> startDelay = new ArrayList<>();
        List<Double> alignment = new ArrayList<>();
        List<Double> sync = new ArrayList<>();
        List<Double> async = new ArrayList<>();
        List<Double> interval = new ArrayList<>();
        long previous = -1;
        for (CheckpointTiming t :
                timings.values().stream()
                        .flatMap(Optional::stream)
                        .sorted((a, b) -> Long.compare(a.triggeredAt(), b.triggeredAt()))
                        .toList()) {
            startDelay.add((double) t.startDelayMillis());
            alignment.add((double) t.alignmentMillis());
            sync.add((double) t.syncMillis());
            async.add((double) t.asyncMillis());
            if (previous >= 0) {
                interval.add((double) (t.triggeredAt() - previous));
            }
            previous = t.triggeredAt();
        }
        return List.of(
                "  commit → committed row, in parts ("
                        + whole.size()
                        + " rows, "
                        + timings.values().stream().filter(Optional::isPresent).count()
                        + " checkpoints"
                        + (unknown > 0
                                ? ", "
                                        + unknown
                                        + " rows of checkpoints without statistics left out"
                                : "")
                        + "): "
                        + Percentiles.of(whole),
                "    commit → live row: " + Percentiles.of(toLive),
                "    live row → checkpoint triggered (waiting for the barrier): "
                        + Percentiles.of(toTrigger),
                "    trigger → last acknowledgement (the checkpoint): "
                        + Percentiles.of(checkpoint),
                "      per checkpoint, slowest subtask: start delay "
                        + Percentiles.of(startDelay)
                        + "; alignment "
                        + Percentiles.of(alignment),
                "      synchronous snapshot "
                        + Percentiles.of(sync)
                        + "; asynchronous part "
                        + Percentiles.of(async),
                "    last acknowledgement → committed row (completion notice, the sink's commit): "
                        + Percentiles.of(toCommitted),
                "    between triggers of these checkpoints: " + Percentiles.of(interval));
    }

    Percentiles whole() {
        return Percentiles.of(whole);
    }
}
