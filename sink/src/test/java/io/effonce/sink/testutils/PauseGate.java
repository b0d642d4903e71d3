package io.effonce.sink.testutils;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Freezes one task attempt at a store call, the way a long GC, a frozen VM or {@code SIGSTOP}
 * freezes a task: its thread stops before the call and goes on only when resumed. The driver of a
 * test learns by an event, not a clock, whether a step it handed the attempt finished or froze.
 */
public final class PauseGate {

    private static final int OPEN = Integer.MAX_VALUE;
    private static final ThreadLocal<PauseGate> OF_THREAD = new ThreadLocal<>();

    private int passesLeft = OPEN;
    private int passesBeforeCrash = OPEN;
    private int passesBeforeCut = OPEN;
    private ConnectionCut cut;
    private final List<ConnectionCut> cutsHit = new ArrayList<>();
    private boolean databaseDown;
    private boolean frozen;
    private boolean crashed;
    private boolean stepDone = true;

    /** Makes this the gate of the calling thread: the thread that runs one attempt. */
    public void bindToThisThread() {
        OF_THREAD.set(this);
    }

    /** The gate of the calling thread. */
    static PauseGate ofThisThread() {
        PauseGate gate = OF_THREAD.get();
        if (gate == null) {
            throw new IllegalStateException("No pause gate is bound to " + Thread.currentThread());
        }
        return gate;
    }

    /** The gate of the calling thread, or null if none is bound to it. */
    static PauseGate ofThisThreadIfAny() {
        return OF_THREAD.get();
    }

    /**
     * Called by the attempt before each store call: waits while the attempt is paused; returns the
     * cut drawn for this call, or null.
     */
    synchronized ConnectionCut pass() {
        if (passesBeforeCrash == 0) {
            crashed = true;
        }
        while (passesLeft == 0 && !crashed) {
            frozen = true;
            notifyAll();
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("A paused attempt was interrupted", e);
            }
        }
        frozen = false;
        if (crashed) {
            throw new IllegalStateException("The attempt's process is gone");
        }
        if (passesLeft != OPEN) {
            passesLeft--;
        }
        if (passesBeforeCrash != OPEN) {
            passesBeforeCrash--;
        }
        if (passesBeforeCut == 0) {
            passesBeforeCut = OPEN;
            return cut;
        }
        if (passesBeforeCut != OPEN) {
            passesBeforeCut--;
        }
        return null;
    }

    /** The attempt's connection is cut at its {@code calls + 1}-th store call from now. */
    public synchronized void cutAt(int calls, ConnectionCut cut) {
        this.passesBeforeCut = calls;
        this.cut = cut;
    }

    /** No cut drawn and not yet reached happens any more. */
    public synchronized void noCut() {
        passesBeforeCut = OPEN;
    }

    /** A drawn cut reached the database's COMMIT of a store call (or the call itself). */
    synchronized void cutHit(ConnectionCut hit) {
        cutsHit.add(hit);
        databaseDown |= hit.databaseDown();
    }

    /** The cuts that hit since the last call, for a run's report. */
    public synchronized List<ConnectionCut> takeCutsHit() {
        List<ConnectionCut> hits = List.copyOf(cutsHit);
        cutsHit.clear();
        return hits;
    }

    /**
     * Whether a cut in the current step left the database unreachable: the attempt's failure is the
     * drawn fault, not a finding.
     */
    public synchronized boolean databaseDown() {
        return databaseDown;
    }

    /**
     * The attempt's process dies before its {@code calls + 1}-th store call from now: that call and
     * every later one fail on the attempt's own thread, and never reach the store.
     */
    public synchronized void crashAfter(int calls) {
        passesBeforeCrash = calls;
    }

    /** Unbinds the calling thread's gate, if any. */
    public static void unbindThisThread() {
        OF_THREAD.remove();
    }

    /** The attempt freezes before its {@code calls + 1}-th store call from now. */
    public synchronized void pauseAfter(int calls) {
        passesLeft = calls;
    }

    /** Lets a paused attempt go on. */
    public synchronized void resume() {
        passesLeft = OPEN;
        // No longer frozen from now on: a driver waiting for the step must not take the freeze
        // it just lifted for a new one before the attempt's thread has even woken.
        frozen = false;
        notifyAll();
    }

    /**
     * The attempt's process is gone: a call it was frozen in, and every later one, never reaches
     * the store.
     */
    public synchronized void crash() {
        crashed = true;
        frozen = false;
        notifyAll();
    }

    /** Marks the start of a step the driver handed to the attempt. */
    public synchronized void stepStarted() {
        stepDone = false;
        databaseDown = false; // it is back: the next step connects again
    }

    /** Marks the end of that step (finished or thrown). */
    public synchronized void stepEnded() {
        stepDone = true;
        notifyAll();
    }

    /**
     * Waits until the current step ended or the attempt froze inside it; returns whether it froze.
     */
    public synchronized boolean awaitEndedOrFrozen(Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!stepDone && !frozen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(
                        "A step of a task attempt neither ended nor froze at a store call within "
                                + atMost);
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return !stepDone;
    }
}
