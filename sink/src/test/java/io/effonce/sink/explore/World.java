package io.effonce.sink.explore;

import io.effonce.sink.testutils.ConnectionCut;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The small world {@link HistoryEnumerator} walks: one or two subtasks, two keys, a seed every
 * history starts from (each subtask open, key 0 written and committed at checkpoint 1, key 1 never
 * written), and the steps each history is made of: writes, deletes and retirements of either key,
 * barriers and completions with the notice delivered or lost, crashes and pauses, an attempt that
 * dies inside its open, a frozen attempt waking up, a JobManager failover, connection cuts at a
 * COMMIT, a failed stop-with-savepoint, a fresh start with the reset cut after its takeover, an
 * operator's redeploy of an older checkpoint at the other parallelism, the sink's database going
 * back (whole or only its rows and writers) and the retention's clock running out.
 *
 * <p>The model's assumption, as sink/DATABASE-GOES-BACK.md states it: the database never goes back
 * past final rows and tombstones that state no longer retains. So with retention 0 it never goes
 * back, and with a retention it does not go back once the retention ran out.
 */
record World(String name, int parallelism, Duration retention, List<Step> alphabet) {

    /** Each subtask open; key 0 written and committed at checkpoint 1; key 1 never written. */
    List<Step> seed() {
        List<Step> seed = new ArrayList<>();
        for (int s = 0; s < parallelism; s++) {
            seed.add(new Step.Open(s));
        }
        seed.add(new Step.Upsert(0, 100));
        seed.add(new Step.Checkpoint(true));
        return seed;
    }

    static World of(int parallelism, Duration retention) {
        boolean retains = !retention.isZero();
        List<Step> steps = new ArrayList<>();
        for (int key = 0; key < 2; key++) {
            steps.add(new Step.Upsert(key, 1));
            steps.add(new Step.Delete(key));
            steps.add(new Step.Retire(key));
        }
        steps.add(new Step.Barrier());
        steps.add(new Step.Complete(true));
        steps.add(new Step.Checkpoint(true));
        steps.add(new Step.Checkpoint(false));
        for (int s = 0; s < parallelism; s++) {
            steps.add(new Step.Fail(s, false));
            steps.add(new Step.Fail(s, true));
            steps.add(new Step.OpenDies(s, 1));
            steps.add(new Step.OpenDies(s, 2));
        }
        steps.add(new Step.Wake(0));
        steps.add(new Step.JobManagerFailover(0, true));
        for (ConnectionCut cut : ConnectionCut.values()) {
            steps.add(new Step.CutConnection(0, 0, cut));
        }
        steps.add(new Step.FailedStopWithSavepoint());
        steps.add(new Step.FreshStartWithReset(0, true, parallelism));
        steps.add(new Step.OlderSavepoint(1, 3 - parallelism));
        steps.add(new Step.SecondDeploymentByMistake());
        if (retains) {
            steps.add(new Step.DatabaseGoesBack(0));
            steps.add(new Step.TablesGoBack(0));
            steps.add(new Step.RetentionPasses());
        }
        String name =
                "parallelism "
                        + parallelism
                        + ", retention "
                        + (retains ? retention.toString() : "0");
        return new World(name, parallelism, retention, List.copyOf(steps));
    }

    /** Whether the history keeps to the model's assumption about the database going back. */
    static boolean keepsToTheAssumption(List<Step> history) {
        boolean ranOut = false;
        for (Step step : history) {
            ranOut |= step instanceof Step.RetentionPasses;
            if (ranOut && goesBack(step)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the history also keeps the retention from running out after the database went back:
     * the sink notices at its next barrier (one checkpoint interval), an hour before the retention
     * runs out; a long sampled history can place the run-out first (a job stuck meanwhile, the
     * limit sink/DATABASE-GOES-BACK.md states), so the sampler leaves those out. The walk keeps
     * them: none of its histories up to its bounds reaches that limit.
     */
    static boolean noticesBeforeTheRetentionRunsOut(List<Step> history) {
        boolean wentBack = false;
        for (Step step : history) {
            wentBack |= goesBack(step);
            if (wentBack && step instanceof Step.RetentionPasses) {
                return false;
            }
        }
        return keepsToTheAssumption(history);
    }

    /** Whether the step puts the sink's database, or some of its tables, back in time. */
    static boolean goesBack(Step step) {
        return step instanceof Step.DatabaseGoesBack || step instanceof Step.TablesGoBack;
    }
}
