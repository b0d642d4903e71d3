package io.effonce.job.backlog;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.InputStatus;

/**
 * A source reader that watches the timestamps of the records its delegate emits (for Kafka, the
 * broker's append time) and tells the enumerator its first verdict as soon as it has emitted a
 * record (or, holding no split, at its first checkpoint), then when it falls behind or catches up,
 * and again every {@link #REPEAT} while it stays behind: a reader that stops saying so has gone
 * quiet, with nothing left to catch up on. Its lag is that of its most lagging split (a partition),
 * so one fresh partition does not hide another that is hours behind. It looks every {@link
 * #LOOK_EVERY}, and whenever the delegate has nothing more for now: the moment a backlog ends.
 */
final class LagReportingReader<T, S extends SourceSplit> implements SourceReader<T, S> {

    static final Duration LOOK_EVERY = Duration.ofMillis(200);
    static final Duration REPEAT = Duration.ofSeconds(1);

    private final SourceReader<T, S> reader;
    private final SourceReaderContext context;
    private final LagClassifier classifier;
    private final Clock clock;

    /** The main output and every split's, each with the newest timestamp since the last look. */
    private final List<StampWatching<?>> outputs = new ArrayList<>();

    private long lastLook;
    private long lastSent;

    /** Whether this reader has given its first verdict, which its enumerator waits for. */
    private boolean reported;

    private ReaderOutput<T> wrapped;
    private StampWatchingOutput watching;

    LagReportingReader(
            SourceReader<T, S> reader,
            SourceReaderContext context,
            LagClassifier classifier,
            Clock clock) {
        this.reader = reader;
        this.context = context;
        this.classifier = classifier;
        this.clock = clock;
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        if (output != wrapped) {
            wrapped = output;
            outputs.remove(watching);
            watching = new StampWatchingOutput(output);
            outputs.add(watching);
        }
        InputStatus status = reader.pollNext(watching);
        long now = clock.millis();
        if (!reported
                || status != InputStatus.MORE_AVAILABLE
                || now - lastLook >= LOOK_EVERY.toMillis()) {
            lastLook = now;
            look(now);
        }
        return status;
    }

    /** Takes the lag of the most lagging output that emitted since the last look. */
    private void look(long now) {
        long lag = -1;
        for (StampWatching<?> out : outputs) {
            if (out.newest != Long.MIN_VALUE) {
                lag = Math.max(lag, Math.max(0, now - out.newest));
                out.newest = Long.MIN_VALUE;
            }
        }
        if (lag < 0) {
            return;
        }
        boolean changed = classifier.observe(lag);
        if (changed || !reported || (classifier.behind() && now - lastSent >= REPEAT.toMillis())) {
            reported = true;
            lastSent = now;
            context.sendSourceEventToCoordinator(new ReaderLag(classifier.behind(), lag));
        }
    }

    @Override
    public void start() {
        reader.start();
    }

    /**
     * A reader that holds no split at a checkpoint and has not given its verdict yet (more subtasks
     * than partitions) has nothing to catch up on: it says so, rather than leave its enumerator
     * presuming a backlog until {@link BacklogEnumerator#QUIET} has passed. (A checkpoint before
     * the enumerator's first assignment finds no split either: the reader then says so too early,
     * and says it is behind with its first old records.)
     */
    @Override
    public List<S> snapshotState(long checkpointId) {
        List<S> splits = reader.snapshotState(checkpointId);
        if (!reported && splits.isEmpty()) {
            reported = true;
            lastSent = clock.millis();
            context.sendSourceEventToCoordinator(new ReaderLag(false, 0));
        }
        return splits;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return reader.isAvailable();
    }

    @Override
    public void addSplits(List<S> splits) {
        reader.addSplits(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
        reader.notifyNoMoreSplits();
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        reader.handleSourceEvents(event);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        reader.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        reader.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void pauseOrResumeSplits(
            Collection<String> splitsToPause, Collection<String> splitsToResume) {
        reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
    }

    @Override
    public void close() throws Exception {
        reader.close();
    }

    /** An output that notes the newest of its records' timestamps on the way. */
    private class StampWatching<O extends SourceOutput<T>> implements SourceOutput<T> {
        final O output;
        long newest = Long.MIN_VALUE;

        StampWatching(O output) {
            this.output = output;
        }

        @Override
        public void collect(T record) {
            output.collect(record);
        }

        @Override
        public void collect(T record, long timestamp) {
            if (timestamp > newest) {
                newest = timestamp;
            }
            output.collect(record, timestamp);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            output.emitWatermark(watermark);
        }

        @Override
        public void markIdle() {
            output.markIdle();
        }

        @Override
        public void markActive() {
            output.markActive();
        }
    }

    /** The operator's output, whose per-split outputs note their records' timestamps too. */
    private final class StampWatchingOutput extends StampWatching<ReaderOutput<T>>
            implements ReaderOutput<T> {
        private final Map<String, StampWatching<SourceOutput<T>>> splits = new HashMap<>();

        StampWatchingOutput(ReaderOutput<T> output) {
            super(output);
        }

        @Override
        public SourceOutput<T> createOutputForSplit(String splitId) {
            StampWatching<SourceOutput<T>> split =
                    new StampWatching<>(output.createOutputForSplit(splitId));
            splits.put(splitId, split);
            outputs.add(split);
            return split;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
            outputs.remove(splits.remove(splitId));
            output.releaseOutputForSplit(splitId);
        }
    }
}
