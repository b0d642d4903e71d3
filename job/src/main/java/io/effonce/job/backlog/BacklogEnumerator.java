package io.effonce.job.backlog;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delegate's enumerator, which also hears its readers' lag: the source is processing a backlog
 * while any reader is behind, and Flink then checkpoints on {@code
 * execution.checkpointing.interval-during-backlog} instead of {@code
 * execution.checkpointing.interval}. Each enumerator starts presuming a backlog until every subtask
 * has given its first verdict (or {@link #QUIET} has passed), so a start or a global failover on
 * old records does not checkpoint on the short interval meanwhile, and nothing an earlier
 * enumerator told Flink's checkpoint coordinator (which outlives it) stays. A reader that registers
 * again (after a regional failover) starts as caught up, as it does itself.
 */
final class BacklogEnumerator<S extends SourceSplit, E> implements SplitEnumerator<S, E> {

    private static final Logger LOG = LoggerFactory.getLogger(BacklogEnumerator.class);

    static final Duration QUIET = Duration.ofSeconds(30);

    private final SplitEnumerator<S, E> enumerator;
    private final SplitEnumeratorContext<S> context;

    /** Each reader that is behind, and when it last said so (this enumerator's clock). */
    private final Map<Integer, Long> behind = new HashMap<>();

    /** Subtasks that have not given a verdict since this enumerator started. */
    private final Set<Integer> unheard = new TreeSet<>();

    private long startedAt;

    private final Clock clock;
    private final BacklogStatus status;

    BacklogEnumerator(
            SplitEnumerator<S, E> enumerator,
            SplitEnumeratorContext<S> context,
            Clock clock,
            BacklogStatus status) {
        this.enumerator = enumerator;
        this.context = context;
        this.clock = clock;
        this.status = status;
        status.registerOnce(context.metricGroup());
    }

    @Override
    public void handleSourceEvent(int subtask, SourceEvent event) {
        if (event instanceof ReaderLag lag) {
            unheard.remove(subtask);
            boolean wasBehind = !behind.isEmpty();
            if (lag.behind()) {
                behind.put(subtask, clock.millis());
            } else {
                behind.remove(subtask);
            }
            String why = "subtask " + subtask + " emits records " + lag.lagMillis() + " ms old";
            if (!wasBehind && !behind.isEmpty()) {
                status.entered();
                LOG.info(
                        "Processing a backlog: {}; checkpoints follow"
                                + " execution.checkpointing.interval-during-backlog until every"
                                + " subtask has caught up",
                        why);
            }
            decide(why);
        } else {
            enumerator.handleSourceEvent(subtask, event);
        }
    }

    @Override
    public void addReader(int subtask) {
        if (behind.remove(subtask) != null) {
            decide("subtask " + subtask + " registered again");
        }
        enumerator.addReader(subtask);
    }

    private void decide(String why) {
        boolean next = !behind.isEmpty() || !unheard.isEmpty();
        if (next == status.backlog()) {
            return;
        }
        status.set(next);
        if (!next) {
            LOG.info(
                    "Caught up: {}, and no subtask is behind; checkpoints follow"
                            + " execution.checkpointing.interval again",
                    why);
        }
        context.setIsProcessingBacklog(next);
    }

    /** Forgets the readers that have gone quiet while behind. */
    private void forgetQuietReaders() {
        long now = clock.millis();
        List<Integer> quiet =
                behind.entrySet().stream()
                        .filter(e -> now - e.getValue() >= QUIET.toMillis())
                        .map(Map.Entry::getKey)
                        .toList();
        for (int subtask : quiet) {
            behind.remove(subtask);
            decide("subtask " + subtask + " has emitted nothing for " + QUIET.toSeconds() + " s");
        }
        if (!unheard.isEmpty() && now - startedAt >= QUIET.toMillis()) {
            String silent = unheard.toString();
            unheard.clear();
            decide(
                    "subtasks "
                            + silent
                            + " have emitted nothing for "
                            + QUIET.toSeconds()
                            + " s since the start");
        }
    }

    @Override
    public void start() {
        enumerator.start();
        startedAt = clock.millis();
        for (int subtask = 0; subtask < context.currentParallelism(); subtask++) {
            unheard.add(subtask);
        }
        status.set(true);
        context.setIsProcessingBacklog(true);
        LOG.info(
                "Presuming a backlog until each of {} subtasks has said how old its records are"
                        + " (at most {} s)",
                unheard.size(),
                QUIET.toSeconds());
        long period = QUIET.toMillis() / 5;
        context.callAsync(() -> null, (ignored, error) -> forgetQuietReaders(), period, period);
    }

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        enumerator.handleSplitRequest(subtask, requesterHostname);
    }

    @Override
    public void addSplitsBack(List<S> splits, int subtask) {
        enumerator.addSplitsBack(splits, subtask);
    }

    @Override
    public E snapshotState(long checkpointId) throws Exception {
        return enumerator.snapshotState(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        enumerator.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        enumerator.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void close() throws IOException {
        enumerator.close();
    }
}
