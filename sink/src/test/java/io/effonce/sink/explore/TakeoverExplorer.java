package io.effonce.sink.explore;

import static io.effonce.sink.testutils.SinkHarnesses.attempt;
import static io.effonce.sink.testutils.SinkHarnesses.checkpoint;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.explore.Attempt.Ended;
import io.effonce.sink.store.FencedException;
import io.effonce.sink.store.StaleAttemptException;
import io.effonce.sink.testutils.GatedStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Plays one history of {@link Step}s against a real sink operator and store, with a model of what
 * Flink guarantees the sink (one live attempt at a time, restores from the latest completed
 * checkpoint only, attempt numbers that grow) and of what the tables must say, and reports the
 * first thing that went wrong.
 *
 * <p>The model is the job's logical history, {@code lineage}: each key's total, and whether its day
 * closed. A restore sets it back to the lineage at the restored checkpoint, as the replay of the
 * source would; a closed day keeps its final total. After the history settles (the live attempt
 * opens and completes one more checkpoint) the live and the committed table must both equal the
 * lineage, and no committed value may ever have stepped back.
 */
final class TakeoverExplorer<K, V> {

    /** A key's total in the job's logical history, and whether its day is closed. */
    private record Total(long amount, boolean closed) {}

    /** A checkpoint whose barrier passed: its state and the lineage at the barrier. */
    private record Snapshot(long id, OperatorSubtaskState state, Map<Integer, Total> lineage) {}

    private static final JobID JOB = new JobID(24, 24);

    private final ExploredStore<K, V> store;
    private final FlushableSink<K, V> run;
    private final List<String> trace = new ArrayList<>();
    private final List<Attempt<K, V>> frozenPast = new ArrayList<>();
    private final Deque<Snapshot> pending = new ArrayDeque<>();
    private Map<Integer, Total> lineage = new HashMap<>();
    private Snapshot completed;
    private Attempt<K, V> live;
    private int attempts;
    private long checkpoints;
    private int liveFailures;
    private final List<String> woken = new ArrayList<>();
    private boolean frozeInsideAStep;
    private Map<K, Long> committedSeen = Map.of();

    /**
     * @param unconditional emulate the takeover before the start protocol (the counterfactual)
     */
    TakeoverExplorer(ExploredStore<K, V> store, boolean unconditional) {
        this.store = store;
        this.run =
                FlushableSink.<K, V>builder()
                        .store(GatedStore.gated(store.stores(), unconditional))
                        .valueType(store.valueType())
                        .batchSize(2)
                        .build();
    }

    /** Plays {@code steps}, settles, and returns what is wrong with the tables, or {@code null}. */
    String play(List<Step> steps) {
        store.truncate();
        try {
            live = deploy(null);
            for (Step step : steps) {
                apply(step);
                String stepped = committedSteppedBack();
                if (stepped != null) {
                    return stepped;
                }
            }
            return settle();
        } finally {
            if (live != null) {
                live.crash();
            }
            frozenPast.forEach(Attempt::crash);
        }
    }

    /**
     * How often the live attempt failed (fenced, refused): with the start protocol never, since no
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

    /** What happened, step by step: for the report of a failing history. */
    List<String> trace() {
        return trace;
    }

    private void apply(Step step) {
        if (step instanceof Step.Upsert u) {
            Total was = lineage.get(u.key());
            if (liveBusy() || (was != null && was.closed())) {
                return;
            }
            long amount = (was == null ? 0 : was.amount()) + u.amount();
            lineage.put(u.key(), new Total(amount, false));
            onLive(step, h -> h.processElement(upsert(u.key(), amount)));
        } else if (step instanceof Step.Retire r) {
            Total was = lineage.get(r.key());
            if (liveBusy() || was == null || was.closed()) {
                return;
            }
            lineage.put(r.key(), new Total(was.amount(), true));
            onLive(
                    step,
                    h -> h.processElement(new StreamRecord<>(SinkChange.retire(key(r.key())))));
        } else if (step instanceof Step.Barrier) {
            barrier(step);
        } else if (step instanceof Step.Complete c) {
            complete(c);
        } else if (step instanceof Step.Fail f) {
            trace.add(
                    "JobManager gives up on attempt "
                            + live.number
                            + (f.paused() ? " (frozen, not dead)" : " (crashed)"));
            if (f.paused()) {
                live.gate.pauseAfter(0);
                frozenPast.add(live);
            } else {
                live.crash();
            }
            live = deploy(completed);
        } else if (step instanceof Step.Open) {
            if (live.opened || live.frozen) {
                return;
            }
            live.opened = true;
            onLive(step, h -> h.open());
        } else if (step instanceof Step.PauseAfter p) {
            if (live.frozen) {
                return;
            }
            trace.add("attempt " + live.number + " will freeze after " + p.calls() + " calls");
            live.gate.pauseAfter(p.calls());
        } else if (step instanceof Step.Wake w) {
            if (!frozenPast.isEmpty()) {
                wake(frozenPast.remove(w.which() % frozenPast.size()));
            }
        }
    }

    private void barrier(Step step) {
        if (liveBusy()) {
            return;
        }
        long id = ++checkpoints;
        Map<Integer, Total> atBarrier = new HashMap<>(lineage);
        OperatorSubtaskState[] state = new OperatorSubtaskState[1];
        if (onLive(step, h -> state[0] = checkpoint(h, id)) == Ended.DONE) {
            live.lastBarrier = id;
            pending.add(new Snapshot(id, state[0], atBarrier));
        }
    }

    private void complete(Step.Complete step) {
        if (pending.isEmpty()) {
            return;
        }
        completed = pending.poll();
        trace.add("checkpoint " + completed.id() + " completes");
        if (step.notified() && !liveBusy()) {
            long id = completed.id();
            onLive(step, h -> h.notifyOfCompletedCheckpoint(id));
        }
    }

    /**
     * A frozen attempt of the past wakes up: it finishes what it froze in, opens if it never did,
     * and writes a total of its own. Refusals and fencing are what must happen to it; any other
     * failure is a finding.
     */
    private void wake(Attempt<K, V> old) {
        trace.add("attempt " + old.number + " wakes up");
        List<Ended> ends = new ArrayList<>();
        if (old.frozen) {
            ends.add(old.wake());
        }
        old.gate.resume();
        if (!old.opened && lastEnded(ends) != Ended.THREW) {
            old.opened = true;
            ends.add(old.run(h -> h.open()));
        }
        if (lastEnded(ends) != Ended.THREW) {
            long barrier = old.lastBarrier + 1;
            ends.add(
                    old.run(
                            h -> {
                                h.processElement(upsert(0, 999_999));
                                h.prepareSnapshotPreBarrier(barrier);
                            }));
        }
        Throwable t = old.thrown();
        woken.add(t == null ? "wrote" : t.getClass().getSimpleName());
        trace.add(
                "attempt "
                        + old.number
                        + " after waking: "
                        + (t == null ? "wrote" : t.getClass().getSimpleName()));
        if (t != null && !(t instanceof FencedException || t instanceof StaleAttemptException)) {
            throw new AssertionError("attempt " + old.number + " failed after waking up", t);
        }
        old.crash();
    }

    private static Ended lastEnded(List<Ended> ends) {
        return ends.isEmpty() ? Ended.DONE : ends.get(ends.size() - 1);
    }

    /** Settles the history and compares the tables with the lineage. */
    private String settle() {
        trace.add("settle");
        if (!live.frozen) {
            live.gate.resume(); // a pause armed but not reached never happens
        }
        for (int tries = 0; tries < 3 && liveBusy(); tries++) {
            if (live.frozen) {
                live.crash();
                live = deploy(completed);
            }
            apply(new Step.Open());
        }
        while (!frozenPast.isEmpty()) {
            wake(frozenPast.remove(0)); // every pause ends, after the live attempt took over
        }
        apply(new Step.Barrier());
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

    /** A committed value replaced by one of an older checkpoint, or gone: none may be. */
    private String committedSteppedBack() {
        Map<K, Long> now = store.committedCheckpoints();
        for (Map.Entry<K, Long> seen : committedSeen.entrySet()) {
            Long id = now.get(seen.getKey());
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

    /** Whether the live attempt cannot take input: not open, or frozen. */
    private boolean liveBusy() {
        return !live.opened || live.frozen;
    }

    /**
     * Runs a step on the live attempt. If it fails, Flink fails the attempt and restores, as the
     * JobManager would: counted, because with the start protocol it must never happen.
     */
    private Ended onLive(Step step, Attempt.Work<K, V> work) {
        Ended ended = live.run(work);
        frozeInsideAStep |= ended == Ended.FROZE;
        trace.add("attempt " + live.number + ": " + step + " -> " + ended);
        if (ended == Ended.THREW) {
            liveFailures++;
            trace.add("  " + live.thrown());
            live.crash();
            live = deploy(completed);
        }
        return ended;
    }

    /** Deploys the next attempt, restored from {@code from} (or without state). */
    private Attempt<K, V> deploy(Snapshot from) {
        int number = attempts++;
        pending.clear();
        lineage = from == null ? new HashMap<>() : new HashMap<>(from.lineage());
        try {
            Attempt<K, V> next =
                    new Attempt<>(number, attempt(run, store.keyType(), JOB, 1, 0, number));
            Ended ended =
                    next.run(
                            h -> {
                                if (from == null) {
                                    h.initializeEmptyState();
                                } else {
                                    h.setRestoredCheckpointId(from.id());
                                    h.initializeState(from.state());
                                }
                            });
            if (ended != Ended.DONE) {
                throw new AssertionError("attempt " + number + " could not restore", next.thrown());
            }
            next.lastBarrier = from == null ? 0 : from.id();
            trace.add(
                    "attempt "
                            + number
                            + " deployed, restored "
                            + (from == null ? "nothing" : "checkpoint " + from.id()));
            return next;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private StreamRecord<SinkChange<K, V>> upsert(int key, long amount) {
        return new StreamRecord<>(SinkChange.upsert(key(key), store.value(amount)));
    }

    private K key(int key) {
        return store.key("k" + key);
    }
}
