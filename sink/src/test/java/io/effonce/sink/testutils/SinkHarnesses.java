package io.effonce.sink.testutils;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.internal.FlushReport;
import java.lang.reflect.Field;
import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.apache.flink.runtime.io.disk.iomanager.IOManager;
import org.apache.flink.runtime.io.disk.iomanager.IOManagerAsync;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.scheduler.strategy.ExecutionVertexID;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** Builds, restores and feeds flushable-sink harnesses keyed by String with Long values. */
public final class SinkHarnesses {

    public static final int MAX_PARALLELISM = 128;

    /** The execution graph of attempts whose test has one JobManager only. */
    public static final ExecutionGraphID GRAPH = new ExecutionGraphID();

    private SinkHarnesses() {}

    public static FlushableSink.Builder<String, Long> sink(InMemoryTable<String, Long> table) {
        return FlushableSink.<String, Long>builder()
                .store(InMemorySinkStore.factory(table))
                .valueType(TypeInformation.of(Long.class))
                .flushInterval(Duration.ofMillis(200));
    }

    public static KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>
            harness(FlushableSink<String, Long> sink, int parallelism, int subtask)
                    throws Exception {
        return harness(sink, TypeInformation.of(String.class), parallelism, subtask);
    }

    /** A harness for any key type; the key type's hash decides key groups as in a job. */
    public static <K, V> KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> harness(
            FlushableSink<K, V> sink, TypeInformation<K> keyType, int parallelism, int subtask)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                sink.createOperator(),
                SinkChange::key,
                keyType,
                environment(new JobID(), GRAPH, MAX_PARALLELISM, parallelism, subtask, 0));
    }

    /** A started harness with no restored state. */
    public static KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>
            fresh(FlushableSink<String, Long> sink) throws Exception {
        var h = harness(sink, 1, 0);
        h.open();
        return h;
    }

    /** A started harness of subtask 0 of 1 with no restored state, for any key type. */
    public static <K, V> KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> opened(
            FlushableSink<K, V> sink, TypeInformation<K> keyType) throws Exception {
        var h = harness(sink, keyType, 1, 0);
        h.open();
        return h;
    }

    /** A started harness of subtask 0 of 1 restored from checkpoint {@code checkpointId}. */
    public static <K, V>
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> restoredFrom(
                    FlushableSink<K, V> sink,
                    TypeInformation<K> keyType,
                    OperatorSubtaskState state,
                    long checkpointId)
                    throws Exception {
        var h = harness(sink, keyType, 1, 0);
        h.setRestoredCheckpointId(checkpointId);
        h.initializeState(state);
        h.open();
        return h;
    }

    /**
     * A started harness of attempt {@code attempt} of subtask 0 of 1 in job {@code job}, restored
     * from checkpoint {@code checkpointId}: restores in one job are restarts of one run.
     */
    public static KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>
            restoredInJob(
                    FlushableSink<String, Long> sink,
                    OperatorSubtaskState state,
                    long checkpointId,
                    JobID job,
                    int attempt)
                    throws Exception {
        var h = attempt(sink, TypeInformation.of(String.class), job, 1, 0, attempt);
        h.setRestoredCheckpointId(checkpointId);
        h.initializeState(state);
        h.open();
        return h;
    }

    /** A started harness with no restored state, in the job {@code job} (a fixed job id). */
    public static KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>
            freshInJob(FlushableSink<String, Long> sink, JobID job) throws Exception {
        MockEnvironment environment = environment(job, GRAPH, MAX_PARALLELISM, 1, 0, 0);
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        sink.createOperator(),
                        SinkChange::key,
                        TypeInformation.of(String.class),
                        environment);
        h.open();
        return h;
    }

    /**
     * A harness for attempt {@code attempt} of subtask {@code subtask} of {@code parallelism} in
     * job {@code job}, neither initialized nor opened: a test decides when the attempt restores
     * ({@code initializeState}) and when it asks for its range ({@code open}), and can pause it in
     * between.
     */
    public static <K, V> KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> attempt(
            FlushableSink<K, V> sink,
            TypeInformation<K> keyType,
            JobID job,
            int parallelism,
            int subtask,
            int attempt)
            throws Exception {
        return attempt(sink, keyType, job, GRAPH, MAX_PARALLELISM, parallelism, subtask, attempt);
    }

    /**
     * The same, for an attempt deployed by execution graph {@code graph} (a JobManager's, whose
     * attempt numbers start from 0) in a job of {@code maxParallelism} key groups.
     */
    public static <K, V> KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> attempt(
            FlushableSink<K, V> sink,
            TypeInformation<K> keyType,
            JobID job,
            ExecutionGraphID graph,
            int maxParallelism,
            int parallelism,
            int subtask,
            int attempt)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                sink.createOperator(),
                SinkChange::key,
                keyType,
                environment(job, graph, maxParallelism, parallelism, subtask, attempt));
    }

    /**
     * A task's environment: attempt {@code attempt} of subtask {@code subtask} of {@code
     * parallelism}, deployed by {@code graph} (the harness's own would make a new graph for each,
     * as if every harness ran under another JobManager).
     */
    /**
     * One I/O manager for every environment: the sink never spills, and each of Flink's own starts
     * two threads that a harness built on a given environment never stops (an exploration builds
     * thousands of attempts).
     */
    private static final IOManager IO_MANAGER = new IOManagerAsync();

    private static MockEnvironment environment(
            JobID job,
            ExecutionGraphID graph,
            int maxParallelism,
            int parallelism,
            int subtask,
            int attempt)
            throws ReflectiveOperationException {
        ExecutionAttemptID id =
                new ExecutionAttemptID(
                        graph, new ExecutionVertexID(new JobVertexID(), subtask), attempt);
        CapturedMetrics metrics = new CapturedMetrics();
        MockEnvironment environment =
                new MockEnvironmentBuilder()
                        .setJobID(job)
                        .setMaxParallelism(maxParallelism)
                        .setParallelism(parallelism)
                        .setSubtaskIndex(subtask)
                        .setIOManager(IO_MANAGER)
                        .setMetricGroup(metrics.taskGroup(job, id))
                        .build();
        withAttemptNumber(environment, attempt);
        withAttemptId(environment, id);
        return environment;
    }

    /**
     * What the harness's restore flush did, as the sink's metrics report it: read from the registry
     * its task's metric group registers with (a map beside the harnesses would keep every one of
     * the exploration's attempts alive through the gauges' references).
     */
    public static FlushReport lastFlush(AbstractStreamOperatorTestHarness<?> harness)
            throws ReflectiveOperationException {
        return metricsOf(harness).lastFlush();
    }

    /** Whether the harness's sink holds its output until its first barrier (row 3b). */
    public static boolean awaitingFirstBarrier(AbstractStreamOperatorTestHarness<?> harness)
            throws ReflectiveOperationException {
        return metricsOf(harness).awaitingFirstBarrier();
    }

    private static CapturedMetrics metricsOf(AbstractStreamOperatorTestHarness<?> harness)
            throws ReflectiveOperationException {
        Field registry = AbstractMetricGroup.class.getDeclaredField("registry");
        registry.setAccessible(true);
        return (CapturedMetrics) registry.get(harness.getEnvironment().getMetricGroup());
    }

    /**
     * Flink's mock environment always runs attempt 0; its builder cannot say otherwise, so the task
     * info is replaced by one with the attempt number the test needs.
     */
    private static void withAttemptNumber(MockEnvironment environment, int attempt)
            throws ReflectiveOperationException {
        TaskInfo was = environment.getTaskInfo();
        Field field = MockEnvironment.class.getDeclaredField("taskInfo");
        field.setAccessible(true);
        field.set(
                environment,
                new TaskInfoImpl(
                        was.getTaskName(),
                        was.getMaxNumberOfParallelSubtasks(),
                        was.getIndexOfThisSubtask(),
                        was.getNumberOfParallelSubtasks(),
                        attempt));
    }

    /** The mock environment's attempt id, which names the graph that deployed the attempt. */
    private static void withAttemptId(MockEnvironment environment, ExecutionAttemptID id)
            throws ReflectiveOperationException {
        Field field = MockEnvironment.class.getDeclaredField("executionAttemptID");
        field.setAccessible(true);
        field.set(environment, id);
    }

    /** A started harness restored from the state of checkpoint {@code checkpointId}. */
    public static KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void>
            restored(
                    FlushableSink<String, Long> sink,
                    OperatorSubtaskState state,
                    long checkpointId,
                    int parallelism,
                    int subtask)
                    throws Exception {
        var h = harness(sink, parallelism, subtask);
        h.setRestoredCheckpointId(checkpointId);
        h.initializeState(state);
        h.open();
        return h;
    }

    /** Repartitions one snapshot (of any parallelism) for subtask {@code subtask} of {@code to}. */
    public static OperatorSubtaskState repartition(
            OperatorSubtaskState merged, int from, int to, int subtask) {
        return repartition(merged, MAX_PARALLELISM, from, to, subtask);
    }

    /** The same, for a job of {@code maxParallelism} key groups. */
    public static OperatorSubtaskState repartition(
            OperatorSubtaskState merged, int maxParallelism, int from, int to, int subtask) {
        return AbstractStreamOperatorTestHarness.repartitionOperatorState(
                merged, maxParallelism, from, to, subtask);
    }

    public static void upsert(
            KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void> h,
            String key,
            long value)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.upsert(key, value)));
    }

    public static void retire(
            KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void> h,
            String key)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.retire(key)));
    }

    public static void delete(
            KeyedOneInputStreamOperatorTestHarness<String, SinkChange<String, Long>, Void> h,
            String key)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.delete(key)));
    }

    /**
     * A checkpoint as a task runs it: the buffer is written before the barrier, then the state is
     * snapshotted. (The harness's own {@code snapshot} skips the first step.)
     */
    public static <K, V> OperatorSubtaskState checkpoint(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h, long checkpointId)
            throws Exception {
        h.prepareSnapshotPreBarrier(checkpointId);
        return h.snapshot(checkpointId, checkpointId);
    }

    /**
     * A synchronous savepoint (a stop-with-savepoint) as a task runs it: the buffer is written
     * before the barrier, then the state is snapshotted as a savepoint. Its completion notice is
     * the caller's to give.
     */
    public static <K, V> OperatorSubtaskState stopWithSavepoint(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h, long savepointId)
            throws Exception {
        h.prepareSnapshotPreBarrier(savepointId);
        return h.snapshotWithLocalState(
                        savepointId,
                        savepointId,
                        SavepointType.terminate(SavepointFormatType.CANONICAL))
                .getJobManagerOwnedState();
    }

    /** The key group of a key under the harnesses' max parallelism. */
    public static int keyGroupOf(String key) {
        return KeyGroupRangeAssignment.assignToKeyGroup(key, MAX_PARALLELISM);
    }

    /** The subtask index that owns {@code key} at {@code parallelism}. */
    public static int subtaskOf(Object key, int parallelism) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                key, MAX_PARALLELISM, parallelism);
    }
}
