package io.effonce.sink.internal;

import io.effonce.sink.FlushableSinkOptions;
import java.util.Optional;

/**
 * What a sink attempt says when its start is refused or put off ({@link StartDecision}): each
 * message names the table, the range, why, and what to do, for the operator reading the log.
 */
final class StartRefusals {

    private StartRefusals() {}

    /** Row 3b: the attempt waits for its first barrier. */
    static String awaitingFirstBarrier(KeyGroupSpan span, Claim claim, String table) {
        return claim.task()
                + ": "
                + span
                + " of "
                + table
                + " is owned by an attempt of another JobManager that restored the same"
                + " checkpoint ("
                + claim.restoredOrZero()
                + "); this attempt holds its output and asks again at its first barrier, which"
                + " only the current JobManager's attempts get";
    }

    /** Rows 1–3. */
    static StaleAttemptException stale(
            KeyGroupSpan span, Claim claim, RangeRecord found, String table) {
        StartDecision.Staleness why = StartDecision.staleness(claim, found).orElseThrow();
        return new StaleAttemptException(
                "Refusing a stale attempt: "
                        + claim.task()
                        + " asked for "
                        + span
                        + " of "
                        + table
                        + ", but "
                        + why.reason()
                        + (why.byLaterDeployment()
                                ? ". If that deployment was started by mistake and this job is"
                                        + " the one that should run, cancel the later one and"
                                        + " submit this job again from its newest retained"
                                        + " checkpoint: a new submission is a later deployment"
                                        + " still, and restores. This attempt"
                                : ". It was paused while the job moved on; it")
                        + " leaves the fence and every table as they are.");
    }

    /** Row 3a. */
    static IllegalStateException rescaledInRun(KeyGroupSpan span, Claim claim, String table) {
        return new IllegalStateException(
                claim.task()
                        + " runs at parallelism "
                        + claim.parallelism()
                        + ", but an attempt of the same run took key groups of "
                        + span
                        + " of "
                        + table
                        + " at another parallelism: the job was rescaled within its"
                        + " run, which only the adaptive scheduler does. Set "
                        + DeploymentConfig.ADAPTIVE_REFUSAL
                        + " The sink refuses to go on, leaving every table as it is.");
    }

    /** Row 8: names where to restore from, or the reset. */
    static IllegalStateException freshStart(
            KeyGroupSpan span, RangeRecord found, Optional<String> checkpointsDir, String table) {
        return new IllegalStateException(
                "Refusing a fresh start: table "
                        + table
                        + " already holds rows in "
                        + span
                        + ", written by "
                        + found.ownerRuns()
                        + ", and this job has no restored state to flush them against: a submit"
                        + " without a savepoint or checkpoint is a fresh start, and a new submit"
                        + " of the job that wrote them (after a cancel, say) is a restore. "
                        + whereToRestoreFrom(found, checkpointsDir)
                        + " Or set "
                        + FlushableSinkOptions.RESET_ON_FRESH_START.key()
                        + "=true to delete those rows first.");
    }

    /** Row 5a: another run still holds the range; names it, and the ways out. */
    static RangeHeldException rangeHeld(
            KeyGroupSpan span, Claim claim, RangeRecord found, StartRules rules, String table) {
        String holder = found.heldByAnotherRun(claim.run(), rules.ownerLease()).orElseThrow();
        return new RangeHeldException(
                "Refusing a start without state: "
                        + span
                        + " of "
                        + table
                        + " is held by run "
                        + holder
                        + ", which took it or passed a checkpoint barrier in it "
                        + found.leases().get(holder).toSeconds()
                        + " s ago and has not closed. A second deployment of the same sink while"
                        + " it runs would take its key groups away. If it still runs, cancel this"
                        + " one; if it is gone (its process died without closing), cancel it in"
                        + " Flink, or wait until "
                        + FlushableSinkOptions.OWNER_LEASE.key()
                        + " ("
                        + rules.ownerLease().toSeconds()
                        + " s) has passed since it was last seen. Nothing was written.");
    }

    /** Names the retained checkpoint to restore from, checked against what the sink recorded. */
    private static String whereToRestoreFrom(RangeRecord found, Optional<String> checkpointsDir) {
        Optional<RetainedCheckpoints.Retained> retained =
                checkpointsDir.flatMap(
                        d ->
                                RetainedCheckpoints.toRestore(
                                        d, found.ownerRuns(), found.lastCommitted()));
        if (retained.isPresent()) {
            String path = retained.get().path();
            String restore =
                    "If the job that wrote them is no longer running, restore it from the retained"
                            + " checkpoint "
                            + path
                            + " (deploy/cluster/bin/flink-local submit --savepoint "
                            + path
                            + " ..., or Flink's flink run -s "
                            + path
                            + " ...), or from a newer savepoint; if it still runs, this is a second"
                            + " writer of the same table: cancel this one.";
            return retained.get().recorded()
                    ? restore + " It is the last checkpoint the sink committed for these rows."
                    : restore
                            + " The sink last committed checkpoint "
                            + found.lastCommitted()
                            + " for these rows; this newer one completed after it, so check that"
                            + " it is this job's: deployments with the same job id share its"
                            + " directory.";
        }
        return "Restore the job from its last retained checkpoint (in "
                + checkpointsDir
                        .map(d -> d.replaceAll("/+$", "") + "/<job id>/chk-<n>")
                        .orElse("execution.checkpointing.dir")
                + (found.lastCommitted() > 0
                        ? "; the sink last committed checkpoint " + found.lastCommitted()
                        : "")
                + ") or savepoint.";
    }
}
