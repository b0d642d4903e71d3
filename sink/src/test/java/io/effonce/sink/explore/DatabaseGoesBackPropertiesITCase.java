package io.effonce.sink.explore;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.PostgresStores;
import io.effonce.sink.SinkChange;
import io.effonce.sink.internal.LostWritesException;
import io.effonce.sink.testutils.SinkHarnesses;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.jqwik.SoakTries;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The sink's database goes back in time at any point of a history of upserts, retirements, deletes
 * and checkpoints (some completed, some not), by any number of steps: its tables and sequences are
 * put back to a copy taken earlier and its sessions end. Whatever the history, either the sink
 * notices at its next write transaction ({@link LostWritesException}) and, after Flink's restore of
 * the last completed checkpoint, live and committed both hold exactly that checkpoint's values,
 * retired keys included and deleted keys absent; or the database lost nothing of the writer's and
 * the tables are right as they are. With the check switched off ({@code sink.lost-write-check}
 * false) the property fails: the lost values stay.
 */
class DatabaseGoesBackPropertiesITCase {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);

    private static ExplorationDatabase database;
    private static PostgresEndpoint db;

    @BeforeContainer
    static void startPostgres() {
        database = ExplorationDatabase.start("effonce_goes_back");
        db = database.endpoint();
    }

    @AfterContainer
    static void stopPostgres() {
        database.close();
    }

    /** One step of a history. */
    sealed interface Op {
        record Upsert(int key, long value) implements Op {}

        record Retire(int key) implements Op {}

        record Delete(int key) implements Op {}

        /** A new run deployed from one of the running lineage's completed checkpoints. */
        record Rollback(int pick) implements Op {}

        record Checkpoint(boolean completes) implements Op {}
    }

    /** Steps; the copy is taken after step {@code copyAt}, put back after step {@code backAt}. */
    record History(List<Op> ops, int copyAt, int backAt) {}

    // Shrinks on the test's thread (FULL has no time bound): a bounded shrink that runs out goes
    // on in the background, playing histories against this class's database beside the next test.
    @Property(tries = 20, shrinking = ShrinkingMode.FULL)
    @SoakTries(40)
    void afterTheRestoreLiveAndCommittedHoldTheLastCompletedCheckpoint(
            @ForAll("histories") History history) throws Exception {
        TotalsTable<TestKey> table = new TotalsTable<>(db, TestRows.MAPPING);
        table.truncate();
        Run run = new Run(newSink(), new JobID());

        Map<TestKey, Long> current = new HashMap<>(); // every key's value, retired ones included
        // The completed checkpoints of the running lineage, oldest first.
        List<Completed> completed = new ArrayList<>();
        long checkpoint = 0;
        SinkDatabaseRollback copy = null;
        boolean noticed = false;
        int rollbacks = 0;
        int deletes = 0;
        var h = run.attempt();
        try {
            h.initializeEmptyState();
            h.open();
            for (int i = 0; i < history.ops().size() && !noticed; i++) {
                Op op = history.ops().get(i);
                try {
                    if (op instanceof Op.Upsert u) {
                        h.processElement(
                                new StreamRecord<>(
                                        SinkChange.upsert(
                                                key(u.key()), new TestTotal(u.value(), 1))));
                        current.put(key(u.key()), u.value());
                    } else if (op instanceof Op.Retire r) {
                        if (current.containsKey(key(r.key()))) {
                            h.processElement(new StreamRecord<>(SinkChange.retire(key(r.key()))));
                        }
                    } else if (op instanceof Op.Delete d) {
                        h.processElement(new StreamRecord<>(SinkChange.delete(key(d.key()))));
                        current.remove(key(d.key()));
                        deletes++;
                    } else if (op instanceof Op.Checkpoint c) {
                        OperatorSubtaskState state = SinkHarnesses.checkpoint(h, ++checkpoint);
                        if (c.completes()) {
                            h.notifyOfCompletedCheckpoint(checkpoint);
                            completed.add(new Completed(checkpoint, state, Map.copyOf(current)));
                        }
                    } else if (op instanceof Op.Rollback b && !completed.isEmpty()) {
                        // The operator cancels the job and deploys it again from an older
                        // completed checkpoint: a new run, numbering its checkpoints from there.
                        h.close();
                        int to = b.pick() % completed.size();
                        Completed target = completed.get(to);
                        completed.subList(to + 1, completed.size()).clear();
                        current = new HashMap<>(target.values());
                        checkpoint = target.id();
                        run = new Run(newSink(), new JobID());
                        rollbacks++;
                        h = run.attempt();
                        h.setRestoredCheckpointId(target.id());
                        h.initializeState(target.state());
                        h.open();
                    }
                } catch (LostWritesException e) {
                    noticed = true;
                }
                if (i == history.copyAt()) {
                    copy = SinkDatabaseRollback.copy(db);
                }
                if (i == history.backAt()) {
                    copy.restore();
                }
            }
            if (!noticed) {
                // A barrier always writes (its record in the fence): the next one notices.
                try {
                    SinkHarnesses.checkpoint(h, ++checkpoint);
                } catch (LostWritesException e) {
                    noticed = true;
                }
            }
        } finally {
            h.close();
        }
        Statistics.label("the sink noticed the database went back").collect(noticed);
        Statistics.label("rollbacks as a new run").collect(Math.min(rollbacks, 2));
        Statistics.label("deletes").collect(Math.min(deletes, 2));
        Statistics.label("a rollback, then the database back, noticed")
                .collect(rollbacks > 0 && noticed);
        Map<TestKey, Long> atCompleted =
                completed.isEmpty() ? Map.of() : completed.get(completed.size() - 1).values();
        if (!noticed) {
            // Nothing of the writer's was lost, or the check is off: no failure, no restore.
            assertThat(table.totals()).as("live, never noticed").isEqualTo(current);
            assertThat(table.committed()).as("committed, never noticed").isEqualTo(atCompleted);
            return;
        }
        // The task failed: Flink restores the running lineage's last completed checkpoint, or none.
        var restored = run.attempt();
        try {
            if (completed.isEmpty()) {
                restored.initializeEmptyState();
            } else {
                Completed last = completed.get(completed.size() - 1);
                restored.setRestoredCheckpointId(last.id());
                restored.initializeState(last.state());
            }
            restored.open();
            assertThat(table.totals())
                    .as("live after the restore of the running lineage's last checkpoint")
                    .isEqualTo(atCompleted);
            assertThat(table.committed())
                    .as("committed after the restore of the running lineage's last checkpoint")
                    .isEqualTo(atCompleted);
        } finally {
            restored.close();
        }
    }

    /** A completed checkpoint: its id, state and every key's value at it. */
    record Completed(long id, OperatorSubtaskState state, Map<TestKey, Long> values) {}

    /** A run of the job: one graph ({@code FlushableSink}), one job id, its attempts numbered. */
    private static final class Run {
        private final FlushableSink<TestKey, TestTotal> sink;
        private final JobID job;
        private int attempts;

        Run(FlushableSink<TestKey, TestTotal> sink, JobID job) {
            this.sink = sink;
            this.job = job;
        }

        KeyedOneInputStreamOperatorTestHarness<TestKey, SinkChange<TestKey, TestTotal>, Void>
                attempt() throws Exception {
            return SinkHarnesses.attempt(
                    sink, TypeInformation.of(TestKey.class), job, 1, 0, attempts++);
        }
    }

    private static FlushableSink<TestKey, TestTotal> newSink() {
        return FlushableSink.<TestKey, TestTotal>builder()
                .store(
                        PostgresStores.deployed(
                                PostgresStoreConfig.builder()
                                        .url(db.jdbcUrl())
                                        .username(db.user())
                                        .password(db.password())
                                        .table("merchant_daily_totals")
                                        .build(),
                                TestRows.MAPPING))
                .valueType(TypeInformation.of(TestTotal.class))
                .build();
    }

    @Provide
    Arbitrary<History> histories() {
        Arbitrary<Op> op =
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(
                                5,
                                Combinators.combine(
                                                Arbitraries.integers().between(0, 5),
                                                Arbitraries.longs().between(1, 1_000))
                                        .as(Op.Upsert::new)),
                        net.jqwik.api.Tuple.of(
                                1, Arbitraries.integers().between(0, 5).map(Op.Retire::new)),
                        net.jqwik.api.Tuple.of(
                                1, Arbitraries.integers().between(0, 5).map(Op.Delete::new)),
                        net.jqwik.api.Tuple.of(
                                1, Arbitraries.integers().between(0, 9).map(Op.Rollback::new)),
                        net.jqwik.api.Tuple.of(
                                3, Arbitraries.of(true, true, false).map(Op.Checkpoint::new)));
        return op.list()
                .ofMinSize(4)
                .ofMaxSize(30)
                .flatMap(
                        ops ->
                                Arbitraries.integers()
                                        .between(0, ops.size() - 1)
                                        .flatMap(
                                                copyAt ->
                                                        Arbitraries.integers()
                                                                .between(copyAt, ops.size() - 1)
                                                                .map(
                                                                        backAt ->
                                                                                new History(
                                                                                        new ArrayList<>(
                                                                                                ops),
                                                                                        copyAt,
                                                                                        backAt))));
    }

    private static TestKey key(int k) {
        return new TestKey("k" + k, DAY, "EUR");
    }
}
