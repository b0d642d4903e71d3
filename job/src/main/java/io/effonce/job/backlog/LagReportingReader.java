package io.effonce.job.backlog;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
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
 * broker's append time) and tells the enumerator when it falls behind or catches up, and again
 * every {@link #REPEAT} while it stays behind: a reader that stops saying so has gone quiet, with
 * nothing left to catch up on. It looks at the clock once every {@value #POLLS_PER_LOOK} records,
 * and whenever the delegate has nothing more for now: the moment a backlog ends.
 */
final class LagReportingReader<T, S extends SourceSplit> implements SourceReader<T, S> {

    static final int POLLS_PER_LOOK = 1024;
    static final Duration REPEAT = Duration.ofSeconds(1);

    private final SourceReader<T, S> reader;
    private final SourceReaderContext context;
    private final LagClassifier classifier;
    private final Clock clock;
    private long newest = Long.MIN_VALUE;
    private int polls;
    private long lastSent;
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
            watching = new StampWatchingOutput(output);
        }
        InputStatus status = reader.pollNext(watching);
        if (newest != Long.MIN_VALUE
                && (status != InputStatus.MORE_AVAILABLE || ++polls >= POLLS_PER_LOOK)) {
            polls = 0;
            long now = clock.millis();
            long lag = Math.max(0, now - newest);
            newest = Long.MIN_VALUE;
            boolean changed = classifier.observe(lag);
            if (changed || (classifier.behind() && now - lastSent >= REPEAT.toMillis())) {
                lastSent = now;
                context.sendSourceEventToCoordinator(new ReaderLag(classifier.behind(), lag));
            }
        }
        return status;
    }

    private void saw(long timestamp) {
        if (timestamp > newest) {
            newest = timestamp;
        }
    }

    @Override
    public void start() {
        reader.start();
    }

    @Override
    public List<S> snapshotState(long checkpointId) {
        return reader.snapshotState(checkpointId);
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

    /** An output that notes every record's timestamp on the way. */
    private class StampWatching<O extends SourceOutput<T>> implements SourceOutput<T> {
        final O output;

        StampWatching(O output) {
            this.output = output;
        }

        @Override
        public void collect(T record) {
            output.collect(record);
        }

        @Override
        public void collect(T record, long timestamp) {
            saw(timestamp);
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

        StampWatchingOutput(ReaderOutput<T> output) {
            super(output);
        }

        @Override
        public SourceOutput<T> createOutputForSplit(String splitId) {
            return new StampWatching<>(output.createOutputForSplit(splitId));
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
            output.releaseOutputForSplit(splitId);
        }
    }
}
