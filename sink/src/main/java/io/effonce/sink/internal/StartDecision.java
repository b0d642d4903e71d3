package io.effonce.sink.internal;

import java.util.Optional;

/**
 * Which row of the start table a sink subtask attempt's start is, on what the database holds for
 * its key-group range, read inside the takeover transaction ({@link StartPlan#of} turns the row
 * into the one plan {@link StartProtocol} carries out). Start and restore are one path; every case
 * is a row of this table, tried top to bottom.
 *
 * <table>
 *   <caption>The start decision</caption>
 *   <tr><th>#</th><th>what the takeover reads</th><th>start</th><th>what it does</th></tr>
 *   <tr><td>1</td><td>a later deployment took over from the claimant's run</td>
 *       <td>{@link #REFUSE_STALE}</td><td>nothing: fence, live, committed, progress as found</td></tr>
 *   <tr><td>1b</td><td>a later deployment owns key groups of the range: both were numbered when
 *       their graphs were built ({@link DeploymentOrder}), the owner's number is larger</td>
 *       <td>{@link #REFUSE_STALE}</td><td>nothing</td></tr>
 *   <tr><td>1c</td><td>a later deployment owns key groups anywhere in the table below the
 *       claimant's maximum parallelism: an attempt of an earlier deployment woke after a database
 *       that went back forgot the later one's takeover of this range</td>
 *       <td>{@link #REFUSE_STALE}</td><td>nothing</td></tr>
 *   <tr><td>2</td><td>the claimant's run committed a checkpoint in the range newer than the one the
 *       claimant restored (0 without state): Flink restores only the latest completed checkpoint,
 *       so a newer attempt ran since</td><td>{@link #REFUSE_STALE}</td><td>nothing</td></tr>
 *   <tr><td>3</td><td>an owner of the claimant's run restored a newer checkpoint; or it restored
 *       the same one and, deployed by the same execution graph, is a later attempt of the same
 *       subtask; or, deployed by another graph, passed a barrier after it that is not older than
 *       the claimant's first barrier</td><td>{@link #REFUSE_STALE}</td><td>nothing</td></tr>
 *   <tr><td>3a</td><td>an owner of the claimant's run has another parallelism: the run was
 *       rescaled within itself, which only the adaptive scheduler does (however it was configured:
 *       on the JobManager alone, a task cannot see it)</td><td>{@link #REFUSE_RESCALE_IN_RUN}</td>
 *       <td>nothing; the message names the scheduler and the way out</td></tr>
 *   <tr><td>3b</td><td>an owner of the claimant's run deployed by another execution graph restored
 *       the same checkpoint; the claimant asks at its start</td>
 *       <td>{@link #AWAIT_FIRST_BARRIER}</td><td>nothing yet: the attempt holds its output and asks
 *       again at its first barrier</td></tr>
 *   <tr><td>4</td><td>the claimant restored checkpoint {@code c} (a task restart, a failover, a
 *       rescale, or a deployment from a savepoint: an older one rolls back)</td>
 *       <td>{@link #FLUSH_RESTORED}</td><td>take; flush from {@code c} (incremental when
 *       every key group committed {@code c} or later, else full); committed reconciled to {@code
 *       c}</td></tr>
 *   <tr><td>5</td><td>no state; the claimant's run owns the range (a restart before its first
 *       checkpoint)</td><td>{@link #FLUSH_ERASED_RUN}</td><td>take; flush from "checkpoint 0"
 *       with empty state, then the reset: what the erased run wrote goes, and so does what a
 *       reset of row 7 cut between its takeover and its delete left (staged, committed,
 *       progress)</td></tr>
 *   <tr><td>5a</td><td>no state; the range holds no row, or {@code sink.reset-on-fresh-start} is
 *       set (rows 6 and 7 would take it); another run holds the range: it took key groups of it or
 *       passed a barrier in them within {@code sink.owner-lease}, and has not closed (a second
 *       deployment started without state by mistake while the first runs)</td>
 *       <td>{@link #REFUSE_RANGE_HELD}</td><td>nothing; the message names the run and the ways
 *       out</td></tr>
 *   <tr><td>6</td><td>no state; the range holds no row, live, staged or committed (a row 5
 *       start cut after its flush leaves staged and committed values of an erased run behind live
 *       rows it already deleted)</td><td>{@link #BEGIN}</td>
 *       <td>take</td></tr>
 *   <tr><td>7</td><td>no state; other runs' rows; {@code sink.reset-on-fresh-start}</td>
 *       <td>{@link #RESET}</td><td>take; delete the range's rows, staged, committed,
 *       progress</td></tr>
 *   <tr><td>8</td><td>no state; other runs' rows</td><td>{@link #REFUSE_FRESH_START}</td>
 *       <td>nothing; the message names where to restore from</td></tr>
 * </table>
 *
 * <p>Rows 3 and 3b order attempts across JobManagers. Flink numbers attempts from 0 again under a
 * new JobManager (a new execution graph), so attempt numbers order attempts of one graph only. What
 * orders graphs is the checkpoint-id counter, which survives a JobManager failover: every barrier
 * of the current JobManager is newer than every barrier of an earlier one, and an attempt of an
 * earlier one gets no barrier of the current one (its inputs belong to the old graph). So when the
 * owner and the claimant restored the same checkpoint under different graphs, the claimant waits
 * for its own first barrier: one newer than the last the owner passed proves it current (row 4
 * then); a stale attempt of the old JobManager never gets one, and writes nothing. An owner that
 * restored an older checkpoint is older; one that restored a newer checkpoint is newer (a new
 * JobManager restores the latest completed checkpoint, never an older one).
 *
 * <p>Row 2 counts commits of checkpoints only: a savepoint is acknowledged, never committed ({@code
 * CheckpointCycle#completed}), because Flink may restore the checkpoint before it by itself when a
 * stop-with-savepoint fails after the savepoint completed; that restore is then a row-4 restore
 * like any other. Row 5 needs no commit check of its own: a run that committed a checkpoint
 * restores it.
 *
 * <p>Row 5a keeps a start without state from taking a range a running deployment holds: its
 * subtasks whose ranges hold rows would be refused by row 8, but one whose range holds none would
 * take it and supersede the running job, whose every restart rows 1 and 1b then refuse. A clean
 * close releases the lease, so a job cancelled and submitted again without state starts at once; a
 * run that died without closing holds it until {@code sink.owner-lease} passes.
 *
 * <p>Rows 1–3 are the rule that a takeover is conditional on the durable record: a paused attempt
 * that wakes up after the job moved on must not take the range back and flush it to an older
 * checkpoint, which would roll totals back for good (a key retired since keeps the older value, its
 * row no later flush looks at). Attempt numbers only order attempts of one subtask at one
 * parallelism, so a rescale within a run could not be ordered: the operator refuses the adaptive
 * scheduler, and a rescale is a new run restored from a savepoint. A takeover that is refused
 * writes nothing, so Flink's restart of a refused task meets the same record and is refused the
 * same way.
 */
enum StartDecision {
    REFUSE_STALE,
    REFUSE_RESCALE_IN_RUN,
    AWAIT_FIRST_BARRIER,
    REFUSE_FRESH_START,
    REFUSE_RANGE_HELD,
    FLUSH_RESTORED,
    FLUSH_ERASED_RUN,
    BEGIN,
    RESET;

    /** The decision for {@code claim} on what the takeover read: the table above. */
    static StartDecision decide(Claim claim, RangeRecord found, StartRules rules) {
        if (staleness(claim, found).isPresent()) {
            return REFUSE_STALE;
        }
        if (found.owners().stream().anyMatch(o -> rescaledWithinTheRun(o, claim))) {
            return REFUSE_RESCALE_IN_RUN;
        }
        if (claim.firstBarrier().isEmpty()
                && found.owners().stream()
                        .anyMatch(o -> sameCheckpointUnderAnotherGraph(o, claim))) {
            return AWAIT_FIRST_BARRIER;
        }
        if (claim.restoredCheckpoint().isPresent()) {
            return FLUSH_RESTORED;
        }
        if (found.ownerRuns().contains(claim.run())) {
            return FLUSH_ERASED_RUN;
        }
        boolean wouldTake = !found.hasRows() || rules.resetOnFreshStart();
        if (wouldTake && found.heldByAnotherRun(claim.run(), rules.ownerLease()).isPresent()) {
            return REFUSE_RANGE_HELD;
        }
        if (!found.hasRows()) {
            return BEGIN;
        }
        return rules.resetOnFreshStart() ? RESET : REFUSE_FRESH_START;
    }

    /** Why a claim is stale: its row of the table above, and the reason in words. */
    record Staleness(String row, String reason) {

        /**
         * Rows 1–1c: a later deployment makes the claim stale, so the claimant's job may be the one
         * that should run, and a new submission of it from its checkpoint is the way out.
         */
        boolean byLaterDeployment() {
            return row.startsWith("1");
        }
    }

    /** Why {@code claim} is older than what the range holds (rows 1–3), or empty. */
    static Optional<Staleness> staleness(Claim claim, RangeRecord found) {
        if (found.claimantRunSuperseded()) {
            return stale(
                    "1",
                    "a later deployment of the job took the sink's key groups over from run "
                            + claim.run());
        }
        for (RangeOwner owner : found.owners()) {
            if (DeploymentOrder.later(owner.id().run(), claim.run())) {
                return stale(
                        "1b",
                        "a later deployment of the job ("
                                + owner.id().run()
                                + ") owns key groups of the range; this attempt's ("
                                + claim.run()
                                + ") was built before it");
            }
        }
        if (found.laterDeployment().isPresent()) {
            return stale(
                    "1c",
                    "a later deployment of the job ("
                            + found.laterDeployment().get()
                            + ") owns key groups of the table below this job's maximum parallelism ("
                            + claim.maxParallelism()
                            + "); this attempt's ("
                            + claim.run()
                            + ") was built before it");
        }
        long restored = claim.restoredOrZero();
        if (found.committedByClaimantRun() > restored) {
            return stale(
                    "2",
                    "its run already committed checkpoint "
                            + found.committedByClaimantRun()
                            + " in this range, after the checkpoint it restored ("
                            + restored
                            + "), so a newer attempt has run since");
        }
        for (RangeOwner owner : found.owners()) {
            if (!owner.id().run().equals(claim.run())) {
                continue;
            }
            if (owner.restoredCheckpoint() > restored
                    || (owner.restoredCheckpoint() == restored
                            && !owner.otherGraphThan(claim)
                            && owner.sameSubtaskAs(claim)
                            && owner.id().attempt() > claim.attempt())) {
                return stale(
                        "3",
                        owner.id().task()
                                + " (restored checkpoint "
                                + owner.restoredCheckpoint()
                                + ") owns the range: it is newer than this attempt (restored "
                                + restored
                                + ")");
            }
            if (sameCheckpointUnderAnotherGraph(owner, claim)
                    && claim.firstBarrier().isPresent()
                    && claim.firstBarrier().getAsLong() <= owner.lastBarrier()) {
                return stale(
                        "3",
                        owner.id().task()
                                + ", deployed by another JobManager, owns the range; both"
                                + " restored checkpoint "
                                + restored
                                + " and it passed barrier "
                                + owner.lastBarrier()
                                + "; this attempt's first barrier ("
                                + claim.firstBarrier().getAsLong()
                                + ") is not newer, so its JobManager is the older one");
            }
        }
        return Optional.empty();
    }

    private static Optional<Staleness> stale(String row, String reason) {
        return Optional.of(new Staleness(row, reason));
    }

    /**
     * Whether {@code owner} is an attempt of the claimant's run at another parallelism: the default
     * scheduler keeps a run's parallelism; only the adaptive one (or reactive mode) changes it.
     */
    private static boolean rescaledWithinTheRun(RangeOwner owner, Claim claim) {
        return owner.id().run().equals(claim.run())
                && owner.id().parallelism() != RangeOwner.UNKNOWN
                && owner.id().parallelism() != claim.parallelism();
    }

    /**
     * Whether {@code owner}, an attempt of the claimant's run deployed by another execution graph,
     * restored the same checkpoint as the claimant: which of the two is newer only a barrier can
     * tell (rows 3 and 3b).
     */
    private static boolean sameCheckpointUnderAnotherGraph(RangeOwner owner, Claim claim) {
        return owner.id().run().equals(claim.run())
                && owner.otherGraphThan(claim)
                && owner.restoredCheckpoint() == claim.restoredOrZero();
    }
}
