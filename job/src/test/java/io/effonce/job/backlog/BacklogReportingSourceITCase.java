package io.effonce.job.backlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.kafka.KafkaTopics;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kafka source, wrapped, on a MiniCluster: records stamped an hour ago put the source into a
 * backlog, fresh ones take it out, and Flink then checkpoints on the short interval again (the one
 * during the backlog is an hour). The topic keeps its producers' stamps, so "old" is a stamp, not a
 * wait.
 */
@ExtendWith(KafkaExtension.class)
class BacklogReportingSourceITCase {

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            MiniClusters.oneTaskManager(2, METRICS.addToConfiguration(new Configuration()));

    private static final Duration THRESHOLD = Duration.ofSeconds(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final AtomicLong READ = new AtomicLong();

    @Test
    void oldRecordsAreABacklogAndFreshOnesEndItThenTheShortIntervalApplies(KafkaBootstrap kafka)
            throws Exception {
        String topic = "backlog-old-then-fresh";
        JobClient job = startInBacklog(kafka, topic, 5_000);
        try {
            JobID id = job.getJobID();
            int[] next = {5_000};
            sendOldRounds(kafka, topic, next, 2);
            // The checkpoint that was in flight when the backlog began, and the one already
            // scheduled (Flink does not cancel it), are over by now.
            await("no checkpoint in flight")
                    .atMost(TIMEOUT)
                    .until(() -> gauge(id, "numberOfInProgressCheckpoints") == 0);
            long behindAt = gauge(id, "numberOfCompletedCheckpoints");
            sendOldRounds(kafka, topic, next, 8);
            assertThat(gauge(id, "processingBacklog"))
                    .as("no fresh record yet: still behind")
                    .isEqualTo(1);
            assertThat(gauge(id, "numberOfCompletedCheckpoints"))
                    .as("checkpoints while behind (the interval during a backlog is an hour)")
                    .isEqualTo(behindAt);

            sendFreshUntil(
                    "the source to report it caught up",
                    kafka,
                    topic,
                    next,
                    () -> gauge(id, "processingBacklog") == 0);
            long caughtUpAt = gauge(id, "numberOfCompletedCheckpoints");
            await("checkpoints on the 200 ms interval once caught up (an hour during the backlog)")
                    .atMost(TIMEOUT)
                    .until(() -> gauge(id, "numberOfCompletedCheckpoints") >= caughtUpAt + 3);
            assertThat(gauge(id, "backlogsEntered")).as("one backlog, no flapping").isEqualTo(1);
        } finally {
            job.cancel().get();
        }
    }

    /**
     * The enumerator's clock runs ten times as fast here, so {@link BacklogEnumerator#QUIET} passes
     * in a tenth of its time; the readers' clock, which dates the records, is the real one.
     */
    @Test
    void aReaderThatGoesQuietAfterOldRecordsHasCaughtUp(KafkaBootstrap kafka) throws Exception {
        JobClient job =
                startInBacklog(
                        kafka,
                        "backlog-old-then-quiet",
                        2_000,
                        source ->
                                new BacklogReportingSource<>(
                                        source, THRESHOLD, new TenTimesFaster(Instant.now())));
        try {
            JobID id = job.getJobID();
            await("every old record read").atMost(TIMEOUT).until(() -> READ.get() >= 2_000);
            await(
                            "the backlog to end once no reader has said it is behind for "
                                    + BacklogEnumerator.QUIET
                                    + " by the enumerator's clock")
                    .atMost(TIMEOUT)
                    .until(() -> gauge(id, "processingBacklog") == 0);
        } finally {
            job.cancel().get();
        }
    }

    /** A clock that starts at {@code from} and runs ten times as fast as the system's. */
    private static final class TenTimesFaster extends Clock implements Serializable {

        private final long from;

        TenTimesFaster(Instant from) {
            this.from = from.toEpochMilli();
        }

        @Override
        public long millis() {
            return from + 10 * (System.currentTimeMillis() - from);
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("the enumerator reads millis only");
        }
    }

    /**
     * One reader with two partitions: fresh records on one, records an hour old on the other. The
     * reader's lag is its most lagging partition's, so the fresh one does not hide the other.
     */
    @Test
    void aFreshPartitionDoesNotHideOneThatIsBehind(KafkaBootstrap kafka) throws Exception {
        String topic = "backlog-one-partition-behind";
        KafkaTopics.createStampedByProducers(kafka.servers(), topic, 2);
        List<ProducerRecord<byte[], byte[]>> mixed = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> r : records(topic, 0, 4_000, Duration.ZERO)) {
            boolean old = r.partition() == 1;
            long stamp = old ? r.timestamp() - Duration.ofHours(1).toMillis() : r.timestamp();
            mixed.add(new ProducerRecord<>(topic, r.partition(), stamp, null, r.value()));
        }
        KafkaTopics.send(kafka.servers(), mixed);
        JobClient job = start(kafka, topic, 1);
        try {
            await("the reader of both partitions to report a backlog")
                    .atMost(TIMEOUT)
                    .until(() -> gauge(job.getJobID(), "backlogsEntered") == 1);
        } finally {
            job.cancel().get();
        }
    }

    /**
     * A global failover while behind: Flink's checkpoint coordinator outlives it, and with it the
     * backlog the old enumerator reported, so each new enumerator sets it again itself, presumed
     * until its readers have given their first verdicts. Restored past the old records, the readers
     * have nothing to say until fresh records come; these must then find the 200 ms interval, not
     * the hour. The enumerators' clock stands still, so no backlog ends by a reader going quiet.
     */
    @Test
    void aGlobalFailoverWhileBehindLeavesNoBacklog(
            KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster) throws Exception {
        String topic = "backlog-global-failover";
        JobClient job =
                startInBacklog(
                        kafka,
                        topic,
                        2_000,
                        source ->
                                new BacklogReportingSource<>(
                                        new FailsWhenAsked<>(source),
                                        THRESHOLD,
                                        Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)));
        try {
            JobID id = job.getJobID();
            await("every old record read, the source in a backlog")
                    .atMost(TIMEOUT)
                    .until(() -> READ.get() >= 2_000 && gauge(id, "processingBacklog") == 1);
            // None is scheduled during the backlog: this one, past the old records, is taken by
            // hand, so the failover restores a position after them.
            cluster.triggerCheckpoint(id, CheckpointType.DEFAULT).get();
            FailsWhenAsked.FAIL.set(true);
            await("the global failover, and every task running again")
                    .atMost(TIMEOUT)
                    .until(
                            () ->
                                    gauge(id, "numRestarts") >= 1
                                            && job.getJobStatus().get() == JobStatus.RUNNING);
            assertThat(FailsWhenAsked.FAIL).as("the enumerator failed once").isFalse();
            long restartedAt = gauge(id, "numberOfCompletedCheckpoints");
            int[] next = {2_000};
            sendFreshUntil(
                    "three checkpoints on the 200 ms interval after the failover (an hour while"
                            + " the coordinator still counts the source in a backlog)",
                    kafka,
                    topic,
                    next,
                    () -> gauge(id, "numberOfCompletedCheckpoints") >= restartedAt + 3);
            assertThat(gauge(id, "processingBacklog")).isZero();
        } finally {
            job.cancel().get();
        }
    }

    @Test
    void freshRecordsAreNoBacklog(KafkaBootstrap kafka) throws Exception {
        String topic = "backlog-fresh";
        KafkaTopics.createStampedByProducers(kafka.servers(), topic, 2);
        JobClient job = start(kafka, topic);
        try {
            JobID id = job.getJobID();
            int[] next = {0};
            sendFreshUntil(
                    "5,000 fresh records read", kafka, topic, next, () -> READ.get() >= 5_000);
            assertThat(gauge(id, "backlogsEntered")).isZero();
            assertThat(gauge(id, "processingBacklog")).isZero();
        } finally {
            job.cancel().get();
        }
    }

    /** Sends {@code rounds} times 500 records an hour old, each once the previous ones are read. */
    private static void sendOldRounds(KafkaBootstrap kafka, String topic, int[] next, int rounds) {
        int until = next[0] + rounds * 500;
        await(rounds + " rounds of old records read")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> {
                            if (READ.get() >= next[0] && next[0] < until) {
                                KafkaTopics.send(
                                        kafka.servers(),
                                        records(topic, next[0], 500, Duration.ofHours(1)));
                                next[0] += 500;
                            }
                            return next[0] >= until && READ.get() >= until;
                        });
    }

    /** Sends fresh records, 200 at a time, until {@code done}. */
    private static void sendFreshUntil(
            String what, KafkaBootstrap kafka, String topic, int[] next, Callable<Boolean> done) {
        await(what + ", fresh records arriving")
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> {
                            KafkaTopics.send(
                                    kafka.servers(), records(topic, next[0], 200, Duration.ZERO));
                            next[0] += 200;
                            return done.call();
                        });
    }

    /** Starts the job on {@code count} records stamped an hour ago; returns once it is behind. */
    private static JobClient startInBacklog(KafkaBootstrap kafka, String topic, int count)
            throws Exception {
        return startInBacklog(
                kafka, topic, count, source -> BacklogReportingSource.wrap(source, THRESHOLD));
    }

    /** The same, with the Kafka source wrapped by {@code wrap}. */
    private static JobClient startInBacklog(
            KafkaBootstrap kafka,
            String topic,
            int count,
            Function<KafkaSource<String>, Source<String, ?, ?>> wrap)
            throws Exception {
        KafkaTopics.createStampedByProducers(kafka.servers(), topic, 2);
        KafkaTopics.send(kafka.servers(), records(topic, 0, count, Duration.ofHours(1)));
        JobClient job = start(kafka, topic, 2, wrap);
        await("the source to report a backlog while it reads records an hour old")
                .atMost(TIMEOUT)
                .until(() -> gauge(job.getJobID(), "backlogsEntered") == 1);
        return job;
    }

    private static JobClient start(KafkaBootstrap kafka, String topic) throws Exception {
        return start(kafka, topic, 2);
    }

    private static JobClient start(KafkaBootstrap kafka, String topic, int parallelism)
            throws Exception {
        return start(
                kafka,
                topic,
                parallelism,
                source -> BacklogReportingSource.wrap(source, THRESHOLD));
    }

    private static JobClient start(
            KafkaBootstrap kafka,
            String topic,
            int parallelism,
            Function<KafkaSource<String>, Source<String, ?, ?>> wrap)
            throws Exception {
        READ.set(0);
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL_DURING_BACKLOG, Duration.ofHours(1));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        KafkaSource<String> kafkaSource =
                KafkaSource.<String>builder()
                        .setBootstrapServers(kafka.servers())
                        .setTopics(topic)
                        .setGroupId(topic)
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .build();
        env.fromSource(wrap.apply(kafkaSource), WatermarkStrategy.noWatermarks(), "records")
                .map(new Counted())
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync(topic);
    }

    private static List<ProducerRecord<byte[], byte[]>> records(
            String topic, int first, int count, Duration age) {
        long stamp = System.currentTimeMillis() - age.toMillis();
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(count);
        for (int i = first; i < first + count; i++) {
            byte[] value = ("record-" + i).getBytes(StandardCharsets.UTF_8);
            records.add(new ProducerRecord<>(topic, i % 2, stamp, null, value));
        }
        return records;
    }

    private static long gauge(JobID job, String name) {
        List<Metric> found = new ArrayList<>(METRICS.findMetrics(job, name).values());
        if (found.size() != 1) {
            return -1;
        }
        Object value = found.get(0) instanceof Gauge<?> g ? g.getValue() : null;
        return value instanceof Number n ? n.longValue() : -1;
    }

    /**
     * A source whose enumerator fails when asked (it looks every 50 ms): Flink takes an
     * enumerator's failure for the coordinator's and fails the job over globally, recreating every
     * enumerator from the latest checkpoint.
     */
    private static final class FailsWhenAsked<T, S extends SourceSplit, E>
            implements Source<T, S, E>, ResultTypeQueryable<T> {

        static final AtomicBoolean FAIL = new AtomicBoolean();

        private final Source<T, S, E> source;

        FailsWhenAsked(Source<T, S, E> source) {
            this.source = source;
        }

        @Override
        public Boundedness getBoundedness() {
            return source.getBoundedness();
        }

        @Override
        public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
            return source.createReader(context);
        }

        @Override
        public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context)
                throws Exception {
            return new Failing<>(source.createEnumerator(context), context);
        }

        @Override
        public SplitEnumerator<S, E> restoreEnumerator(
                SplitEnumeratorContext<S> context, E checkpoint) throws Exception {
            return new Failing<>(source.restoreEnumerator(context, checkpoint), context);
        }

        @Override
        public SimpleVersionedSerializer<S> getSplitSerializer() {
            return source.getSplitSerializer();
        }

        @Override
        public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
            return source.getEnumeratorCheckpointSerializer();
        }

        @SuppressWarnings("unchecked")
        @Override
        public TypeInformation<T> getProducedType() {
            return ((ResultTypeQueryable<T>) source).getProducedType();
        }

        private record Failing<S extends SourceSplit, E>(
                SplitEnumerator<S, E> enumerator, SplitEnumeratorContext<S> context)
                implements SplitEnumerator<S, E> {

            @Override
            public void start() {
                enumerator.start();
                context.callAsync(
                        () -> FAIL.getAndSet(false),
                        (fail, error) -> {
                            if (fail) {
                                throw new IllegalStateException("the test's enumerator fails");
                            }
                        },
                        50,
                        50);
            }

            @Override
            public void notifyCheckpointComplete(long checkpointId) throws Exception {
                enumerator.notifyCheckpointComplete(checkpointId);
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
            public void addReader(int subtask) {
                enumerator.addReader(subtask);
            }

            @Override
            public E snapshotState(long checkpointId) throws Exception {
                return enumerator.snapshotState(checkpointId);
            }

            @Override
            public void close() throws IOException {
                enumerator.close();
            }
        }
    }

    private static final class Counted implements MapFunction<String, String> {
        @Override
        public String map(String value) {
            READ.incrementAndGet();
            return value;
        }
    }
}
