package io.effonce.job.backlog;

import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.watermark.WatermarkDeclaration;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;

/**
 * A source that says when it is processing a backlog, for a delegate that does not (the Kafka
 * source never calls {@code setIsProcessingBacklog}): a reader whose records are older than {@code
 * threshold} is behind, and the source is in a backlog while any reader is. Flink then checkpoints
 * on {@code execution.checkpointing.interval-during-backlog}, so a catch-up is not slowed by the
 * short interval that keeps the committed view fresh once the job is live.
 *
 * <p>Splits, enumerator checkpoints and their serializers are the delegate's: wrapping a source, or
 * unwrapping it, leaves its savepoints as they are.
 */
public final class BacklogReportingSource<T, S extends SourceSplit, E>
        implements Source<T, S, E>, ResultTypeQueryable<T>, LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    private final Source<T, S, E> source;
    private final Duration threshold;

    /** The enumerators' clock, by which a reader that has said nothing for a while is quiet. */
    private final Clock enumeratorClock;

    /** On the JobManager, shared by every enumerator its coordinator creates. */
    private transient BacklogStatus status;

    BacklogReportingSource(Source<T, S, E> source, Duration threshold, Clock enumeratorClock) {
        this.source = source;
        this.threshold = threshold;
        this.enumeratorClock = enumeratorClock;
        new LagClassifier(threshold); // refuses a threshold that is not positive, here
    }

    /**
     * {@code source}, reporting a backlog while a reader emits records older than {@code
     * threshold}.
     */
    public static <T, S extends SourceSplit, E> Source<T, S, E> wrap(
            Source<T, S, E> source, Duration threshold) {
        return new BacklogReportingSource<>(source, threshold, Clock.systemUTC());
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
        return new LagReportingReader<>(
                source.createReader(context),
                context,
                new LagClassifier(threshold),
                Clock.systemUTC());
    }

    @Override
    public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context)
            throws Exception {
        return new BacklogEnumerator<>(
                source.createEnumerator(context), context, enumeratorClock, status());
    }

    @Override
    public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E checkpoint)
            throws Exception {
        return new BacklogEnumerator<>(
                source.restoreEnumerator(context, checkpoint), context, enumeratorClock, status());
    }

    private synchronized BacklogStatus status() {
        if (status == null) {
            status = new BacklogStatus();
        }
        return status;
    }

    @Override
    public SimpleVersionedSerializer<S> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    @Override
    public Set<? extends WatermarkDeclaration> declareWatermarks() {
        return source.declareWatermarks();
    }

    @Override
    public LineageVertex getLineageVertex() {
        return source instanceof LineageVertexProvider lineage ? lineage.getLineageVertex() : null;
    }

    @SuppressWarnings("unchecked")
    @Override
    public TypeInformation<T> getProducedType() {
        if (source instanceof ResultTypeQueryable<?> typed) {
            return (TypeInformation<T>) typed.getProducedType();
        }
        throw new IllegalStateException(
                "The wrapped source " + source + " does not say what type it produces");
    }
}
