package io.effonce.sink.explore;

import static io.effonce.sink.testutils.SinkHarnesses.attempt;
import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;
import static io.effonce.sink.testutils.SinkHarnesses.repartition;
import static io.effonce.sink.testutils.SinkHarnesses.stopWithSavepoint;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.RestoreFlushPolicy;
import io.effonce.sink.SinkChange;
import io.effonce.sink.explore.Attempt.Ended;
import io.effonce.sink.internal.FencedException;
import io.effonce.sink.internal.FlushReport;
import io.effonce.sink.internal.LostWritesException;
import io.effonce.sink.internal.RangeHeldException;
import io.effonce.sink.internal.StaleAttemptException;
import io.effonce.sink.testutils.ConnectionCut;
import io.effonce.sink.testutils.DelegatingStore;
import io.effonce.sink.testutils.GatedStore;
import io.effonce.sink.testutils.SinkHarnesses;
import io.effonce.sink.testutils.StoreUnderTest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.executiongraph.ExecutionGraphID;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * Plays one history of {@link Step}s against real sink operators and a real store, with a model of
 * what Flink guarantees the sink (one live attempt per subtask, restores from the latest completed
 * checkpoint only, attempt numbers that grow per subtask) and of what the tables must say, and
 * reports the first thing that went wrong.
 *
 * <p>The model is the job's logical history, {@code lineage}: each key's total, and whether its day
 * closed; a deleted key has none. A restore sets it back to the lineage at the restored checkpoint,
 * as the replay of the source would; a closed day keeps its final total. After the history settles
 * (the live attempts open, every frozen attempt wakes up, one more checkpoint completes) the live
 * and the committed table must both equal the lineage, and no committed value may have stepped back
 * at any step except across an operator's restore of an older checkpoint.
 */
final class TakeoverExplorer<K, V> {

    /** A key's total in the job's logical history, and whether its day is closed. */
    private record Total(long amount, boolean closed) {}

    /** A checkpoint whose barrier passed every subtask: their states and the lineage then. */
    private record Snapshot(
            long id, List<OperatorSubtaskState> states, Map<Integer, Total> lineage) {

        /** The state subtask {@code subtask} of {@code parallelism} restores. */
        OperatorSubtaskState stateFor(int parallelism, int subtask) throws Exception {
            OperatorSubtaskState merged =
                    AbstractStreamOperatorTestHarness.repackageState(
                            states.toArray(OperatorSubtaskState[]::new));
            return repartition(merged, MAX_PARALLELISM, states.size(), parallelism, subtask);
        }
    }

    /**
     * The job's key groups. Ten, not the usual 128: every snapshot writes each key group of each
     * state, which was 40 % of the exhaustive walk's time (a JFR profile), and ten put k0 and k1 on
     * the same subtasks as 128 at parallelism 1, 2 and 3 (the smallest count that does).
     */
    static final int MAX_PARALLELISM = 10;

    /** Processing time that passes for a woken attempt: more than any flush interval. */
    private static final long FLUSH_TIMER_FIRES = 3_600_000;

    /** The restarts a settling history may need before every subtask has an open attempt. */
    private static final int SETTLE_RESTARTS = 3;

    /** One job id for every run: in application mode with HA every deployment has the same. */
    private static final JobID JOB = new JobID(24, 24);

    private final StoreUnderTest<K, V> store;
    private final boolean unconditional;
    private final boolean alwaysFullFlush;
    private final Duration retiredRetention;
    private final List<String> trace = new ArrayList<>();
    private DelegatingStore.Decoration<K, V> ruleOff = store -> store;
    private final List<Attempt<K, V>> frozenPast = new ArrayList<>();
    private final Deque<Snapshot> pending = new ArrayDeque<>();

    /** What an operator can redeploy from: completed checkpoints and savepoints, in order. */
    private final List<Snapshot> redeployable = new ArrayList<>();

    private final Map<Integer, Integer> attemptsOfSubtask = new HashMap<>();
    private final List<String> woken = new ArrayList<>();
    private final List<String> flushModes = new ArrayList<>();
    private final List<String> cutsHit = new ArrayList<>();
    private int failedWithTheDatabaseDown;
    private int settleRestarts;
    private FlushableSink<K, V> run;
    private int stopsFailed;

    private int resetsCut;
    private ExecutionGraphID graph = new ExecutionGraphID();
    private int jobManagerFailovers;
    private List<Attempt<K, V>> live = new ArrayList<>();
    private Map<Integer, Total> lineage = new HashMap<>();
    private Snapshot completed;
    private long checkpoints;
    private int liveFailures;
    private int heldByAZombie;

    /**
     * An attempt of the past woke and may have taken its range (even if its connection failed after
     * the COMMIT): a start meanwhile may find its lease (row 5a) until it runs out.
     */
    private boolean zombieWoke;

    /** Whether the sink's database went back: a lease is only as good as the rows keeping it. */
    private boolean wentBack;

    /** What a second deployment by mistake did that it must not: a finding, or null. */
    private String mistakeTook;

    private boolean frozeInsideAStep;
    private Map<K, Long> committedSeen = Map.of();

    /**
     * An operator's rollback to an older checkpoint is under way: the committed values may step
     * back until every attempt of the new run has opened (its flush rolls them back).
     */
    private boolean rollingBack;

    /** The live attempts when the database last went back: the rollback ends with their restart. */
    private Set<Attempt<K, V>> wentBackUnder = Set.of();

    /**
     * The copies of the sink's database {@link Step.DatabaseGoesBack} can put back, oldest first.
     */
    private final Deque<StoreUnderTest.DatabaseCopy> databaseCopies = new ArrayDeque<>();

    /** How many copies are kept: a standby lags a few checkpoints, not the whole history. */
    private static final int COPIES_KEPT = 3;

    /** The database went back and no live attempt noticed yet: its next write must. */
    private boolean lostWritesDue;

    private int databaseWentBack;

    /** Steps of the history that did not apply in the state they met (each traces what it did). */
    private int skipped;

    /** The processing time state's time to live reads: moved on by {@link Step.RetentionPasses}. */
    private long ttlClock;

    private int goingBackNoticed;

    /**
     * @param unconditional emulate the takeover before the start protocol (the counterfactual)
     */
    TakeoverExplorer(StoreUnderTest<K, V> store, boolean unconditional) {
        this(store, unconditional, false);
    }

    /**
     * @param alwaysFullFlush every restore flush full, as before the incremental flush (to compare)
     */
    TakeoverExplorer(StoreUnderTest<K, V> store, boolean unconditional, boolean alwaysFullFlush) {
        this(store, unconditional, alwaysFullFlush, RETENTION_AS_SHIPPED);
    }

    /**
     * @param retiredRetention {@code sink.retired-retention} of every run (zero: state keeps no
     *     final value nor tombstone, and every flush must do without them)
     */
    TakeoverExplorer(
            StoreUnderTest<K, V> store,
            boolean unconditional,
            boolean alwaysFullFlush,
            Duration retiredRetention) {
        this.store = store;
        this.unconditional = unconditional;
        this.alwaysFullFlush = alwaysFullFlush;
        this.retiredRetention = retiredRetention;
    }

    /**
     * Plays every history with a rule of the sink switched off at its store (the counterfactual the
     * exploration must catch).
     */
    TakeoverExplorer<K, V> withRuleOff(DelegatingStore.Decoration<K, V> ruleOff) {
        this.ruleOff = ruleOff;
        return this;
    }

    /** The retention the sink ships with. */
    static final Duration RETENTION_AS_SHIPPED =
            FlushableSinkOptions.RETIRED_RETENTION.defaultValue();

    /**
     * Plays {@code steps} on a job first deployed at {@code parallelism}, settles, and returns what
     * is wrong with the tables, or {@code null}.
     */
    String play(int parallelism, List<Step> steps) {
        store.truncate();
        try {
            run = newRun();
            deploy(null, parallelism);
            for (Step step : steps) {
                int traced = trace.size();
                apply(step);
                if (trace.size() == traced) {
                    skipped++;
                }
                String stepped = mistakeTook != null ? mistakeTook : committedSteppedBack();
                if (stepped != null) {
                    return stepped;
                }
            }
            return settle();
        } finally {
            live.forEach(Attempt::crash);
            frozenPast.forEach(Attempt::crash);
            databaseCopies.forEach(StoreUnderTest.DatabaseCopy::discard);
        }
    }

    /**
     * How often a live attempt failed (fenced, refused): with the start protocol never, since no
     * older attempt can take its range.
     */
    int liveFailures() {
        return liveFailures;
    }

    /** How each frozen attempt that woke up ended: refused, fenced, or it wrote. */
    List<String> woken() {
        return woken;
    }

    /** Whether an attempt froze in the middle of a step (an open, a write, a checkpoint). */
    boolean frozeInsideAStep() {
        return frozeInsideAStep;
    }

    /**
     * How many steps did not apply in the state they met: such a history is a shorter one played
     * again.
     */
    int skipped() {
        return skipped;
    }

    /** What happened, step by step: for the report of a failing history. */
    List<String> trace() {
        return trace;
    }

    private void apply(Step step) {
        if (step instanceof Step.Upsert u) {
            Total was = lineage.get(u.key());
            Attempt<K, V> owner = ownerOf(u.key());
            if (busy(owner) || (was != null && was.closed())) {
                return;
            }
            long amount = (was == null ? 0 : was.amount()) + u.amount();
            lineage.put(u.key(), new Total(amount, false));
            onLive(owner, step, h -> h.processElement(upsert(u.key(), amount)));
        } else if (step instanceof Step.Retire r) {
            Total was = lineage.get(r.key());
            Attempt<K, V> owner = ownerOf(r.key());
            if (busy(owner) || was == null || was.closed()) {
                return;
            }
            lineage.put(r.key(), new Total(was.amount(), true));
            onLive(
                    owner,
                    step,
                    h -> h.processElement(new StreamRecord<>(SinkChange.retire(key(r.key())))));
        } else if (step instanceof Step.Delete d) {
            Total was = lineage.get(d.key());
            Attempt<K, V> owner = ownerOf(d.key());
            // A closed day is final: the job never deletes it (docs/flushable-sink.md, "The
            // protocol in detail").
            if (busy(owner) || (was != null && was.closed())) {
                return;
            }
            lineage.remove(d.key());
            onLive(
                    owner,
                    step,
                    h -> h.processElement(new StreamRecord<>(SinkChange.delete(key(d.key())))));
        } else if (step instanceof Step.Barrier) {
            barrier(step);
        } else if (step instanceof Step.Complete c) {
            complete(c);
        } else if (step instanceof Step.Fail f) {
            Attempt<K, V> failed = live.get(f.subtask() % live.size());
            trace.add(
                    "JobManager gives up on "
                            + failed
                            + (f.paused() ? " (frozen, not dead)" : " (crashed)"));
            if (f.paused()) {
                failed.gate.pauseAfter(0);
                failed.closedWhenFrozen = closedKeys();
                failed.issuedWhenGivenUp = checkpoints;
                frozenPast.add(failed);
                live.remove(failed);
            }
            restart(completed, live.size() + (f.paused() ? 1 : 0));
        } else if (step instanceof Step.FailedStopWithSavepoint) {
            failedStopWithSavepoint(step);
        } else if (step instanceof Step.FreshStartWithReset r) {
            freshStartWithReset(r);
        } else if (step instanceof Step.JobManagerFailover f) {
            jobManagerFailover(f);
        } else if (step instanceof Step.Open o) {
            Attempt<K, V> a = live.get(o.subtask() % live.size());
            if (a.opened || a.frozen) {
                return;
            }
            a.opened = true;
            onLive(a, step, this::openAndRecordFlush);
        } else if (step instanceof Step.PauseAfter p) {
            Attempt<K, V> a = live.get(p.subtask() % live.size());
            if (!a.frozen) {
                trace.add(a + " will freeze after " + p.calls() + " calls");
                a.gate.pauseAfter(p.calls());
            }
        } else if (step instanceof Step.CutConnection c) {
            Attempt<K, V> a = live.get(c.subtask() % live.size());
            if (!a.frozen) {
                trace.add(
                        a
                                + " will lose its connection at COMMIT after "
                                + c.calls()
                                + " calls: "
                                + c.cut());
                a.gate.cutAt(c.calls(), c.cut());
            }
        } else if (step instanceof Step.Wake w) {
            if (!frozenPast.isEmpty()) {
                wake(frozenPast.remove(w.which() % frozenPast.size()));
            }
        } else if (step instanceof Step.OlderSavepoint o) {
            olderSavepoint(o);
        } else if (step instanceof Step.SecondDeploymentByMistake) {
            secondDeploymentByMistake();
        } else if (step instanceof Step.CopyDatabase) {
            copyDatabase();
        } else if (step instanceof Step.DatabaseGoesBack b) {
            databaseGoesBack(b.back(), false);
        } else if (step instanceof Step.TablesGoBack b) {
            databaseGoesBack(b.back(), true);
        } else if (step instanceof Step.Checkpoint c) {
            int issued = pending.size();
            barrier(step);
            if (pending.size() > issued) {
                while (!pending.isEmpty()) {
                    complete(new Step.Complete(c.notified()));
                }
            }
        } else if (step instanceof Step.OpenDies d) {
            openDies(d);
        } else if (step instanceof Step.RetentionPasses) {
            retentionPasses();
        }
    }

    /**
     * The attempt crashes; its subtask's next attempt opens and its process dies inside the open,
     * and the job restarts again. An open that makes fewer store calls ends first, and the process
     * dies right after it.
     */
    private void openDies(Step.OpenDies step) {
        trace.add(
                "JobManager gives up on " + live.get(step.subtask() % live.size()) + " (crashed)");
        restart(completed, live.size());
        Attempt<K, V> a = live.get(step.subtask() % live.size());
        a.gate.crashAfter(step.calls());
        a.opened = true;
        Ended ended = a.run(this::openAndRecordFlush);
        trace.add(a + " opens and dies before its store call " + (step.calls() + 1) + ": " + ended);
        restart(completed, live.size());
    }

    /** The clock of state's time to live moves past the retention on every live attempt. */
    private void retentionPasses() {
        ttlClock += retiredRetention.toMillis() + 1;
        trace.add("processing time passes beyond the retention");
        long now = ttlClock;
        for (Attempt<K, V> a : live) {
            if (!a.frozen) {
                a.run(h -> h.setStateTtlProcessingTime(now));
            }
        }
    }

    /**
     * The database goes back to the copy. What it lost, committed values included, is the
     * database's fault, not the sink's: the committed table may step back now and until the
     * attempts live at this moment are replaced, after one of them noticed at its next write.
     */
    /** Longer than the lease: what an operator waits, and what settling takes. */
    private static final Duration LEASE_RUNS_OUT =
            FlushableSinkOptions.OWNER_LEASE.defaultValue().plusMinutes(1);

    /** How long the history's clock moved for the owners' leases. */
    private Duration leaseTimePassed = Duration.ZERO;

    private void timePassesForLeases() {
        leaseTimePassed = leaseTimePassed.plus(LEASE_RUNS_OUT);
        store.ageLeases(LEASE_RUNS_OUT);
    }

    private void databaseGoesBack(int back, boolean rowsAndWritersOnly) {
        if (databaseCopies.isEmpty()) {
            return;
        }
        wentBack = true;
        for (int i = 0; i < back && databaseCopies.size() > 1; i++) {
            databaseCopies.removeLast().discard();
        }
        StoreUnderTest.DatabaseCopy copy = databaseCopies.removeLast();
        if (rowsAndWritersOnly) {
            copy.putBackRowsAndWriters();
        } else {
            copy.putBack();
        }
        copy.discard();
        // The copy's fence rows were last seen before the time that passed since: a database's
        // clock does not go back with its rows (the in-memory store's clock never does).
        store.ageLeases(leaseTimePassed);
        databaseWentBack++;
        lostWritesDue = true;
        rollingBack = true;
        wentBackUnder = Set.copyOf(live);
        trace.add(
                rowsAndWritersOnly
                        ? "the sink's rows and writers go back to the copy, not its progress"
                        : "the sink's database goes back to the copy; its sessions end");
    }

    /** Keeps a copy of the sink's database as it is now, where the store can go back. */
    private void copyDatabase() {
        store.copyToGoBackTo()
                .ifPresent(
                        copy -> {
                            databaseCopies.addLast(copy);
                            if (databaseCopies.size() > COPIES_KEPT) {
                                databaseCopies.removeFirst().discard();
                            }
                            trace.add("the sink's database is copied (a standby's state)");
                        });
    }

    /** How often the database went back, and how often a live attempt noticed at its write. */
    int databaseWentBack() {
        return databaseWentBack;
    }

    int goingBackNoticed() {
        return goingBackNoticed;
    }

    private void barrier(Step step) {
        if (live.stream().anyMatch(this::busy)) {
            return;
        }
        snapshotOfEveryLive(step, ++checkpoints, false).ifPresent(pending::add);
    }

    /**
     * Snapshot {@code id} (a savepoint with {@code savepoint}) of every live attempt; empty when a
     * subtask froze or failed, so that it never completes.
     */
    private Optional<Snapshot> snapshotOfEveryLive(Step step, long id, boolean savepoint) {
        Map<Integer, Total> atBarrier = new HashMap<>(lineage);
        List<OperatorSubtaskState> states = new ArrayList<>();
        for (Attempt<K, V> a : List.copyOf(live)) {
            OperatorSubtaskState[] state = new OperatorSubtaskState[1];
            Ended ended =
                    onLive(
                            a,
                            step,
                            h ->
                                    state[0] =
                                            savepoint
                                                    ? stopWithSavepoint(h, id)
                                                    : checkpoint(h, id));
            if (ended != Ended.DONE) {
                return Optional.empty();
            }
            a.lastBarrier = id;
            states.add(state[0]);
        }
        return Optional.of(new Snapshot(id, states, atBarrier));
    }

    private void complete(Step.Complete step) {
        if (pending.isEmpty()) {
            return;
        }
        completed = pending.poll();
        redeployable.add(completed);
        trace.add("checkpoint " + completed.id() + " completes");
        if (step.notified()) {
            long id = completed.id();
            for (Attempt<K, V> a : List.copyOf(live)) {
                if (!busy(a) && live.contains(a)) {
                    onLive(a, step, h -> h.notifyOfCompletedCheckpoint(id));
                }
            }
        }
        copyDatabase(); // an asynchronous standby's state, a few checkpoints behind at most
    }

    /**
     * Every live attempt passes the savepoint's barrier and is told it completed; then the stop
     * fails and the job restarts from the latest completed checkpoint. The savepoint is not a
     * checkpoint Flink restores by itself: it joins no history the model restores from.
     */
    private void failedStopWithSavepoint(Step step) {
        if (live.stream().anyMatch(this::busy)) {
            return;
        }
        long id = ++checkpoints;
        Optional<Snapshot> savepoint = snapshotOfEveryLive(step, id, true);
        if (savepoint.isEmpty()) {
            return; // a subtask froze or failed: the savepoint never completes
        }
        // An operator may deploy from it later, after Flink's restore erased its branch.
        redeployable.add(savepoint.get());
        for (Attempt<K, V> a : List.copyOf(live)) {
            if (!busy(a) && onLive(a, step, h -> h.notifyOfCompletedCheckpoint(id)) != Ended.DONE) {
                return;
            }
        }
        stopsFailed++;
        trace.add("savepoint " + id + " completes; the stop fails before the job finishes");
        restart(completed, live.size());
    }

    /**
     * An operator deploys the job anew, without state and with the reset: a new run. With {@code
     * cut}, one attempt's process dies right after its takeover, before its delete, and Flink
     * restarts the job (still without state: nothing completed).
     */
    private void freshStartWithReset(Step.FreshStartWithReset step) {
        trace.add(
                "an operator deploys a fresh start with the reset at parallelism "
                        + step.parallelism()
                        + (step.cut() ? ", cut after one attempt's takeover" : ""));
        cancelTheRunningJob();
        run = newRun(true);
        graph = new ExecutionGraphID();
        attemptsOfSubtask.clear();
        rollingBack = true; // deleting the totals is what was asked for
        completed = null;
        restart(null, step.parallelism());
        if (step.cut()) {
            Attempt<K, V> a = live.get(step.subtask() % live.size());
            a.gate.crashAfter(1);
            a.opened = true;
            Ended ended = a.run(this::openAndRecordFlush);
            trace.add(a + " dies between its takeover and its delete: " + ended);
            resetsCut++;
            restart(null, live.size());
        }
    }

    /**
     * An operator cancels the running job before a fresh start: its open attempts close and release
     * their ranges. One that froze or crashed since it took its range releases nothing, and the
     * fresh start would be refused until its lease runs out (row 5a): the operator waits that out,
     * as the refusal says. (That a cancel releases at once is {@code SecondDeploymentContract}'s.)
     */
    private void cancelTheRunningJob() {
        for (Attempt<K, V> a : live) {
            if (busy(a)) {
                a.crash();
            } else {
                a.gate.noCut();
                a.dispose();
            }
        }
        live = new ArrayList<>();
        timePassesForLeases();
    }

    /** How many stop-with-savepoints failed after their savepoint, and resets were cut. */
    int stopsFailed() {
        return stopsFailed;
    }

    int resetsCut() {
        return resetsCut;
    }

    /**
     * A new JobManager leads: a new graph, attempt numbers from 0, the latest completed checkpoint
     * restored. Pending checkpoints die with the old leader; checkpoint ids go on.
     */
    private void jobManagerFailover(Step.JobManagerFailover step) {
        Attempt<K, V> kept = live.get(step.subtask() % live.size());
        trace.add(
                "the JobManager fails over"
                        + (step.paused() ? "; " + kept + " is frozen, not dead" : ""));
        if (step.paused()) {
            kept.gate.pauseAfter(0);
            kept.closedWhenFrozen = closedKeys();
            kept.issuedWhenGivenUp = checkpoints;
            frozenPast.add(kept);
            live.remove(kept);
        }
        int parallelism = live.size() + (step.paused() ? 1 : 0);
        graph = new ExecutionGraphID();
        attemptsOfSubtask.clear();
        jobManagerFailovers++;
        restart(completed, parallelism);
    }

    /** How many JobManager failovers the history had. */
    int jobManagerFailovers() {
        return jobManagerFailovers;
    }

    /** An operator redeploys the job from an older completed checkpoint: a new run. */
    private void olderSavepoint(Step.OlderSavepoint step) {
        if (redeployable.size() <= step.back()) {
            return;
        }
        Snapshot savepoint = redeployable.get(redeployable.size() - 1 - step.back());
        trace.add(
                "an operator redeploys from snapshot "
                        + savepoint.id()
                        + " as a new run at parallelism "
                        + step.parallelism());
        run = newRun();
        graph = new ExecutionGraphID();
        attemptsOfSubtask.clear();
        checkpoints = savepoint.id(); // the new run numbers its checkpoints from the savepoint on
        rollingBack = true; // rolling the committed totals back is what was asked for
        completed = savepoint;
        restart(savepoint, step.parallelism());
    }

    /**
     * A frozen attempt of the past wakes up: it finishes what it froze in, opens if it never did,
     * and writes a total of its own, for a day still open when it froze. Refusals (stale, or a
     * range another run holds: row 5a) and fencing are what must happen to it; any other failure is
     * a finding.
     */
    private void wake(Attempt<K, V> old) {
        trace.add(old + " wakes up");
        zombieWoke = true;
        Ended last = Ended.DONE;
        if (old.frozen) {
            last = old.wake();
        }
        old.gate.resume();
        if (!old.opened && last != Ended.THREW) {
            old.opened = true;
            last = old.run(this::openAndRecordFlush);
        }
        if (last != Ended.THREW) {
            // An attempt of the current graph may still be handed a barrier issued while it was
            // live, which it had not passed yet; none issued before its deployment or after the
            // JobManager gave up on it reaches it (checkpoints are triggered on the attempts
            // deployed then). One of an earlier JobManager gets no barrier of the current one
            // (its inputs belong to the old graph), and its own JobManager triggers none any more.
            long barrier = Math.max(old.lastBarrier, old.issuedWhenDeployed) + 1;
            boolean passesABarrier = old.graph.equals(graph) && barrier <= old.issuedWhenGivenUp;
            Integer own = openKeyOwnedBy(old);
            old.run(
                    h -> {
                        if (own != null) {
                            h.processElement(upsert(own, 999_999));
                        }
                        if (passesABarrier) {
                            h.prepareSnapshotPreBarrier(barrier);
                        } else {
                            // its flush timer fires: the buffer goes out between barriers too
                            h.setProcessingTime(h.getProcessingTime() + FLUSH_TIMER_FIRES);
                        }
                    });
        }
        Throwable t = old.thrown();
        noteCuts(old);
        woken.add(t == null ? "wrote" : t.getClass().getSimpleName());
        trace.add(old + " after waking: " + (t == null ? "wrote" : t.getClass().getSimpleName()));
        // A database that went back may have lost this attempt's own acknowledged writes: it
        // notices, as any writer does, and stops.
        if (t != null
                && !(t instanceof FencedException
                        || t instanceof StaleAttemptException
                        || t instanceof RangeHeldException
                        || causedBy(t, LostWritesException.class))
                && !old.gate.databaseDown()) {
            old.crash();
            throw new AssertionError(old + " failed after waking up", t);
        }
        old.crash();
    }

    /**
     * An operator deploys the job again without state while it runs (row 5a of the start table):
     * each attempt of the mistake must be refused and change nothing. Applies while every live
     * attempt is open (the job runs; a restarting job's own earlier attempts hold its ranges too,
     * but a fresh start an operator raced against would not) and the database never went back.
     */
    private void secondDeploymentByMistake() {
        try {
            deployByMistake();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void deployByMistake() throws Exception {
        if (wentBack || live.stream().anyMatch(this::busy)) {
            return;
        }
        trace.add("an operator deploys the job again without state, by mistake, while it runs");
        String before = store.dump();
        FlushableSink<K, V> mistake = newRun();
        ExecutionGraphID mistakeGraph = new ExecutionGraphID();
        for (int s = 0; s < live.size(); s++) {
            Attempt<K, V> a =
                    new Attempt<>(
                            0,
                            s,
                            live.size(),
                            mistakeGraph,
                            attempt(
                                    mistake,
                                    store.keyType(),
                                    JOB,
                                    mistakeGraph,
                                    MAX_PARALLELISM,
                                    live.size(),
                                    s,
                                    0));
            a.run(AbstractStreamOperatorTestHarness::initializeEmptyState);
            Ended ended = a.run(AbstractStreamOperatorTestHarness::open);
            trace.add("  its " + a + ": " + (ended == Ended.THREW ? a.thrown() : ended));
            a.dispose();
            if (ended != Ended.THREW) {
                mistakeTook = "a second deployment by mistake took the range of subtask " + s;
            }
        }
        if (mistakeTook == null && !store.dump().equals(before)) {
            mistakeTook = "a second deployment by mistake changed the store";
        }
    }

    /** Settles the history and compares the tables with the lineage. */
    private String settle() {
        // Time passes too: a run that is gone (crashed, frozen, or back in the fence rows of a
        // database that went back) holds no range past its lease.
        trace.add("settle, after every lease ran out");
        timePassesForLeases();
        for (Attempt<K, V> a : live) {
            a.gate.noCut(); // nor does a cut: the history's faults have stopped
            if (!a.frozen) {
                a.gate.resume(); // a pause armed but not reached never happens
            }
        }
        // A database that went back is noticed at the first write after it, at the latest the
        // barrier below: then the job restarts once more and the new attempts open and repair.
        for (int round = 0; ; round++) {
            String stuck = openEverySubtask();
            if (stuck != null) {
                return stuck;
            }
            while (!frozenPast.isEmpty()) {
                wake(frozenPast.remove(0)); // every pause ends, after the live attempts took over
            }
            int noticedBefore = goingBackNoticed;
            apply(new Step.Barrier());
            if (goingBackNoticed == noticedBefore) {
                break;
            }
            if (round == 1) {
                return "liveness: the last barrier failed twice with no fault";
            }
        }
        while (!pending.isEmpty()) {
            apply(new Step.Complete(true));
        }
        Map<K, Long> expected = new HashMap<>();
        lineage.forEach((k, total) -> expected.put(key(k), total.amount()));
        if (!store.live().equals(expected)) {
            return "live table " + store.live() + " != lineage " + expected;
        }
        if (!store.committed().equals(expected)) {
            return "committed table " + store.committed() + " != lineage " + expected;
        }
        return null;
    }

    /**
     * Liveness: once faults stop, the newest deployment's attempts open within a bounded number of
     * restarts (a frozen attempt armed before the faults stopped is one; a failure in an open would
     * be another) and own every key group: the last barrier and completion write through every
     * subtask, and a fenced write there is a live failure. Returns what is stuck, or null.
     */
    private String openEverySubtask() {
        for (int tries = 0;
                tries < SETTLE_RESTARTS && live.stream().anyMatch(this::busy);
                tries++) {
            if (live.stream().anyMatch(a -> a.frozen)) {
                restart(completed, live.size());
                settleRestarts++;
            }
            for (int s = 0; s < live.size(); s++) {
                apply(new Step.Open(s));
            }
        }
        if (live.stream().anyMatch(this::busy)) {
            return "liveness: after "
                    + SETTLE_RESTARTS
                    + " restarts with no fault, subtasks still without an open attempt: "
                    + live.stream().filter(this::busy).toList();
        }
        return null;
    }

    /**
     * A committed value replaced by one of an older checkpoint, or gone: none may be, except while
     * an operator's rollback is under way: until every live attempt has opened and started (an
     * attempt that found the range held by another JobManager's attempt starts, and may reset, at
     * its first barrier: the sink's {@code awaitingFirstBarrier}).
     */
    private String committedSteppedBack() {
        Map<K, Long> now = store.committedCheckpoints();
        if (rollingBack) {
            committedSeen = now;
            rollingBack =
                    !live.stream()
                            .allMatch(
                                    a ->
                                            a.opened
                                                    && !awaitsFirstBarrier(a)
                                                    && !a.frozen
                                                    && !wentBackUnder.contains(a));
            return null;
        }
        for (Map.Entry<K, Long> seen : committedSeen.entrySet()) {
            Long id = now.get(seen.getKey());
            if (id == null && deletedAtTheLatestCompletedCheckpoint(seen.getKey())) {
                continue;
            }
            if (id == null || id < seen.getValue()) {
                return "committed value of "
                        + seen.getKey()
                        + " stepped back from checkpoint "
                        + seen.getValue()
                        + " to "
                        + id;
            }
        }
        committedSeen = now;
        return null;
    }

    private static boolean awaitsFirstBarrier(Attempt<?, ?> a) {
        try {
            return SinkHarnesses.awaitingFirstBarrier(a.harness);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether the lineage at the latest completed checkpoint lacks {@code key}: a commit deletes
     * it.
     */
    private boolean deletedAtTheLatestCompletedCheckpoint(K key) {
        return completed != null
                && completed.lineage().keySet().stream().noneMatch(k -> key(k).equals(key));
    }

    /** Whether an attempt cannot take input: not open, frozen, or no longer live. */
    private boolean busy(Attempt<K, V> a) {
        return !a.opened || a.frozen || !live.contains(a);
    }

    /**
     * Runs a step on a live attempt. If it fails, Flink fails the job and restores, as the
     * JobManager would: counted, because with the start protocol it must not happen.
     */
    private Ended onLive(Attempt<K, V> a, Step step, Attempt.Work<K, V> work) {
        Ended ended = a.run(work);
        frozeInsideAStep |= ended == Ended.FROZE;
        trace.add(a + ": " + step + " -> " + ended);
        noteCuts(a);
        if (ended == Ended.THREW) {
            if (a.gate.databaseDown()) {
                failedWithTheDatabaseDown++; // the drawn fault: the task fails, Flink restores
            } else if (lostWritesDue && noticedGoingBack(a.thrown())) {
                goingBackNoticed++; // the drawn fault, noticed once: the task fails, Flink restores
                lostWritesDue = false;
            } else if (zombieWoke && a.thrown() instanceof RangeHeldException) {
                heldByAZombie++; // the drawn fault's lease: refused until it runs out
            } else {
                liveFailures++;
            }
            trace.add("  " + a.thrown());
            restart(completed, live.size());
        }
        return ended;
    }

    /**
     * How a live attempt notices that the database went back: it lost the attempt's writes, or it
     * lost its takeover too and an attempt of the past, frozen before it and woken since, took the
     * range again (a database that forgot the fence cannot keep a zombie out; the live attempt's
     * failure and Flink's restore end its writes).
     */
    private static boolean noticedGoingBack(Throwable t) {
        return causedBy(t, LostWritesException.class)
                || causedBy(t, FencedException.class)
                || causedBy(t, StaleAttemptException.class);
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    /** Notes the connection cuts that hit the attempt's store calls. */
    private void noteCuts(Attempt<K, V> a) {
        for (ConnectionCut cut : a.gate.takeCutsHit()) {
            cutsHit.add(cut.name());
            trace.add("  its connection was cut: " + cut);
        }
    }

    /** The connection cuts that hit a store call, by kind. */
    List<String> cutsHit() {
        return cutsHit;
    }

    /** The restarts the settling history needed before every subtask had an open attempt. */
    int settleRestarts() {
        return settleRestarts;
    }

    /** How often a cut left the database down until a live attempt failed (and Flink restored). */
    int failedWithTheDatabaseDown() {
        return failedWithTheDatabaseDown;
    }

    /**
     * The job restarts at {@code parallelism}: every live attempt is cancelled (gone), and each
     * subtask's next attempt restores {@code from} (or nothing).
     */
    private void restart(Snapshot from, int parallelism) {
        live.forEach(Attempt::crash);
        deploy(from, parallelism);
    }

    private void deploy(Snapshot from, int parallelism) {
        pending.clear();
        lineage = from == null ? new HashMap<>() : new HashMap<>(from.lineage());
        List<Attempt<K, V>> next = new ArrayList<>();
        for (int s = 0; s < parallelism; s++) {
            int number = attemptsOfSubtask.merge(s, 1, Integer::sum) - 1;
            int subtask = s;
            try {
                Attempt<K, V> a =
                        new Attempt<>(
                                number,
                                subtask,
                                parallelism,
                                graph,
                                attempt(
                                        run,
                                        store.keyType(),
                                        JOB,
                                        graph,
                                        MAX_PARALLELISM,
                                        parallelism,
                                        subtask,
                                        number));
                Ended ended =
                        a.run(
                                h -> {
                                    h.setStateTtlProcessingTime(ttlClock);
                                    if (from == null) {
                                        h.initializeEmptyState();
                                    } else {
                                        h.setRestoredCheckpointId(from.id());
                                        h.initializeState(from.stateFor(parallelism, subtask));
                                    }
                                });
                if (ended != Ended.DONE) {
                    throw new AssertionError(a + " could not restore", a.thrown());
                }
                a.lastBarrier = from == null ? 0 : from.id();
                a.issuedWhenDeployed = checkpoints;
                next.add(a);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        live = next;
        trace.add(
                "deployed "
                        + parallelism
                        + " subtasks, restored "
                        + (from == null ? "nothing" : "checkpoint " + from.id()));
    }

    /** Opens the attempt's operator and notes how its restore flush ran, if it flushed. */
    private void openAndRecordFlush(
            KeyedOneInputStreamOperatorTestHarness<K, SinkChange<K, V>, Void> h) throws Exception {
        h.open();
        FlushReport flush = SinkHarnesses.lastFlush(h);
        if (flush != FlushReport.NONE) {
            flushModes.add(flush.mode().name());
        }
    }

    /** How each restore flush of the history ran (FULL, INCREMENTAL). */
    List<String> flushModes() {
        return flushModes;
    }

    private FlushableSink<K, V> newRun() {
        return newRun(false);
    }

    private FlushableSink<K, V> newRun(boolean resetOnFreshStart) {
        FlushableSink.Builder<K, V> builder =
                FlushableSink.<K, V>builder()
                        .store(
                                DelegatingStore.decorating(
                                        GatedStore.gated(
                                                store.stores(),
                                                unconditional,
                                                store.cutsAtItsConnection()),
                                        ruleOff))
                        .valueType(store.valueType())
                        .resetOnFreshStart(resetOnFreshStart)
                        .retiredRetention(retiredRetention)
                        .batchSize(2);
        return (alwaysFullFlush ? builder.restoreFlush(RestoreFlushPolicy.FULL) : builder).build();
    }

    /** The live attempt whose key groups hold {@code key}. */
    private Attempt<K, V> ownerOf(int key) {
        return live.get(subtaskOf(key, live.size()));
    }

    /**
     * A key in {@code a}'s key groups whose day was still open when it froze, or null: what an
     * erased run of the job can write. It never writes a day it retired (anything for it is late),
     * and no flush could repair such a write: restored state no longer holds the final total.
     */
    private Integer openKeyOwnedBy(Attempt<K, V> a) {
        for (int k = 0; k < Step.KEYS; k++) {
            if (subtaskOf(k, a.parallelism) == a.subtask && !a.closedWhenFrozen.contains(k)) {
                return k;
            }
        }
        return null;
    }

    /** The keys whose day is closed in the lineage now. */
    private Set<Integer> closedKeys() {
        Set<Integer> closed = new HashSet<>();
        lineage.forEach(
                (key, total) -> {
                    if (total.closed()) {
                        closed.add(key);
                    }
                });
        return closed;
    }

    private int subtaskOf(int key, int parallelism) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                key(key), MAX_PARALLELISM, parallelism);
    }

    private StreamRecord<SinkChange<K, V>> upsert(int key, long amount) {
        return new StreamRecord<>(SinkChange.upsert(key(key), store.value(amount)));
    }

    private K key(int key) {
        return store.key("k" + key);
    }
}
