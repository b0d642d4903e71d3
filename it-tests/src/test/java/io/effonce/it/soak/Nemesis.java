package io.effonce.it.soak;

import static org.awaitility.Awaitility.await;

import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.ClusterChaos;
import io.effonce.it.testutils.OldChangeCopy;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.StepBackSampler;
import io.effonce.it.testutils.TaskManagerPause;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.job.MisreadingRelease;
import io.effonce.testing.LedgerPair;
import io.effonce.testing.faults.SinkDatabaseRollback;
import io.effonce.testing.kafka.KafkaBrokers;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * Applies a {@link SoakFault} to the soak's deployment and waits for the recovery from it: the job
 * running again and past a new checkpoint, every killed process replaced or started again. Each
 * moment is marked in the report; the caller then checks the totals at a quiescent ledger.
 */
final class Nemesis {

    /** Committed checkpoints the sink's database loses when it goes back. */
    private static final int CHECKPOINTS_LOST = 3;

    private static final Duration TIMEOUT = FlinkJobs.DEFAULT_TIMEOUT;

    private final SoakDeployment deployment;
    private final LocalFlinkCluster cluster;
    private final ClusterChaos chaos;
    private final KafkaBrokers kafka;
    private final ChaosReport report;
    private final StepBackSampler sampler;
    private final SoakWorkload workload;
    private final Random random;
    private final JobSubmission job;
    private final JobSubmission badRelease;
    private String jobId;
    private int parallelism;

    Nemesis(
            SoakDeployment deployment,
            JobSubmission job,
            JobSubmission badRelease,
            String jobId,
            int parallelism,
            ChaosReport report,
            StepBackSampler sampler,
            SoakWorkload workload,
            Random random) {
        this.deployment = deployment;
        this.cluster = deployment.cluster();
        this.chaos = deployment.chaos();
        this.kafka = deployment.kafka();
        this.job = job;
        this.badRelease = badRelease;
        this.jobId = jobId;
        this.parallelism = parallelism;
        this.report = report;
        this.sampler = sampler;
        this.workload = workload;
        this.random = random;
    }

    /** Injects {@code fault}, waits for the recovery; returns the recoveries to mark exact. */
    List<ChaosReport.Recovery> apply(SoakFault fault) throws Exception {
        return switch (fault) {
            case TASK_MANAGER_KILL ->
                    List.of(chaos.killTaskManagerMidCheckpoint(jobId, report).recovery());
            case TASK_MANAGER_PAUSE -> {
                TaskManagerPause pause = chaos.pauseTaskManagerMidCheckpoint(jobId, report);
                chaos.retireWokenTaskManager(pause);
                yield List.of(pause.recovery());
            }
            case TASK_MANAGER_PAUSE_BEFORE_TAKEOVER -> {
                ClusterChaos.TakeoverPause paused =
                        chaos.pauseTaskManagerBeforeTakeover(jobId, deployment.holds(), report);
                chaos.awaitWokenTakeover(paused);
                chaos.retireWokenTaskManager(paused.pause());
                yield List.of(paused.pause().recovery());
            }
            case JOB_MANAGER_KILL ->
                    List.of(
                            chaos.killLeadingJobManagerMidCheckpoint(jobId, false, report)
                                    .recovery());
            case BROKER_KILL -> {
                DeadBroker dead = killPartitionLeader();
                dead.recovery.checkpointed(awaitCheckpointAfter(dead.checkpointBefore));
                restart(dead);
                yield List.of(dead.recovery);
            }
            case RELAY_KILL -> {
                long checkpointBefore = latestCheckpoint();
                ChaosReport.Recovery recovery = report.fault("kill", "kill -9 of the relay");
                deployment.relay().kill();
                deployment.relay().start();
                recovery.running("relay streaming again from its offsets");
                recovery.checkpointed(awaitCheckpointAfter(checkpointBefore));
                yield List.of(recovery);
            }
            case SINK_CUT ->
                    List.of(
                            chaos.cutFromPostgresMidTransaction(
                                    jobId, deployment.sinkLink(), report));
            case SINK_DATABASE_BACK -> {
                ChaosReport.Recovery recovery = putSinkDatabaseBack();
                recovery.checkpointed(awaitCheckpointAfter(latestRestored()));
                yield List.of(recovery);
            }
            case LEDGER_FAILOVER -> {
                long checkpointBefore = latestCheckpoint();
                ChaosReport.Recovery recovery = failLedgerOver();
                workload.restartAfterFailover();
                recovery.checkpointed(awaitCheckpointAfter(checkpointBefore));
                yield List.of(recovery);
            }
            case RESCALE -> List.of(resubmit("rescale", parallelism == 2 ? 3 : 2));
            case REDEPLOY -> List.of(resubmit("restart", parallelism));
            case BAD_RELEASE_ROLLED_BACK -> List.of(rollBackABadRelease());
            case OLD_COPY_AFTER_REDEPLOY -> List.of(resendAnOldChangeBeforeARestore());
            case BROKER_KILL_DURING_TASK_MANAGER_RECOVERY -> {
                DeadBroker dead = killPartitionLeader();
                ChaosReport.Recovery second =
                        chaos.killTaskManagerMidCheckpoint(jobId, report).recovery();
                dead.recovery.checkpointed(awaitCheckpointAfter(dead.checkpointBefore));
                restart(dead);
                yield List.of(dead.recovery, second);
            }
            case RELAY_KILL_DURING_JOB_MANAGER_RECOVERY -> {
                ChaosReport.Recovery first = report.fault("kill", "kill -9 of the relay");
                deployment.relay().kill();
                ChaosReport.Recovery second =
                        chaos.killLeadingJobManagerMidCheckpoint(jobId, false, report).recovery();
                deployment.relay().start();
                first.running("relay streaming again from its offsets");
                yield List.of(first, second);
            }
            case BROKER_KILL_DURING_LEDGER_RECOVERY -> {
                long checkpointBefore = latestCheckpoint();
                ChaosReport.Recovery first = failLedgerOver();
                DeadBroker dead = killPartitionLeader();
                workload.restartAfterFailover();
                first.checkpointed(awaitCheckpointAfter(checkpointBefore));
                dead.recovery.checkpointed(awaitCheckpointAfter(dead.checkpointBefore));
                restart(dead);
                yield List.of(first, dead.recovery);
            }
            case JOB_MANAGER_KILL_DURING_SINK_REPAIR -> {
                ChaosReport.Recovery first = putSinkDatabaseBack();
                ChaosReport.Recovery second =
                        chaos.killLeadingJobManagerMidCheckpoint(jobId, false, report).recovery();
                first.checkpointed(latestCheckpoint());
                yield List.of(first, second);
            }
        };
    }

    /** The job's id now: a rescale or a redeploy submits it again under a new one. */
    String jobId() {
        return jobId;
    }

    /** Stops the job with a savepoint and submits it again from it with {@code next} subtasks. */
    private ChaosReport.Recovery resubmit(String kind, int next) {
        ChaosReport.Recovery recovery =
                report.fault(kind, "stop with savepoint, submitted again with p=" + next);
        jobId = cluster.jobs().rescale(jobId, job.withParallelism(next));
        parallelism = next;
        cluster.jobs().awaitAllTasksRunning(jobId);
        CheckpointStats restored = cluster.rest().checkpoints(jobId);
        if (!restored.latestRestoredIsSavepoint()) {
            throw new AssertionError("job " + jobId + " did not start from the savepoint");
        }
        recovery.running("running from the savepoint with p=" + next);
        recovery.checkpointed(awaitCheckpointAfter(restored.latestRestoredId()));
        return recovery;
    }

    /**
     * Stops the job with a savepoint, deploys the bad release from it, waits until the release has
     * committed totals under misread keys, cancels it and deploys the job from the same savepoint.
     * The committed table steps back with the rollback (the release's keys leave it), which the
     * sampler is told; what the job writes after it must not.
     */
    private ChaosReport.Recovery rollBackABadRelease() {
        FlinkJobs jobs = cluster.jobs();
        SinkTables tables = new SinkTables(deployment.sinkDb());
        String savepoint = jobs.stopWithSavepoint(jobId);
        String bad = jobs.submit(badRelease.withParallelism(parallelism).fromSavepoint(savepoint));
        jobs.awaitAllTasksRunning(bad);
        await("the bad release's totals under misread keys committed")
                .atMost(TIMEOUT)
                .until(() -> tables.number(MISREAD_COMMITTED) > 0);
        ChaosReport.Recovery recovery =
                report.fault(
                        "rollback",
                        "a bad release, %d misread keys committed, rolled back to %s"
                                .formatted(tables.number(MISREAD_COMMITTED), savepoint));
        sampler.whileRolledBack(
                () -> {
                    jobs.cancel(bad);
                    jobId = jobs.submit(job.withParallelism(parallelism).fromSavepoint(savepoint));
                    jobs.awaitAllTasksRunning(jobId);
                });
        recovery.running("the job running again from the savepoint before the bad release");
        recovery.checkpointed(awaitCheckpointAfter(latestRestored()));
        return recovery;
    }

    /**
     * Re-sends a copy of the first SUCCEEDED change in the topic, of a day final long ago, while
     * the job is stopped, so that the restored job reads it first; the watermark floor must judge
     * it late. Once it is in late_events and a checkpoint is past it, the nemesis takes it out of
     * there: a copy explained, so that sink + late is held to the ledger again.
     */
    private ChaosReport.Recovery resendAnOldChangeBeforeARestore() {
        SinkTables tables = new SinkTables(deployment.sinkDb());
        OldChangeCopy copy =
                OldChangeCopy.firstSucceededInTopic(
                        deployment.ledger().endpoint(),
                        kafka.bootstrapServers(),
                        deployment.topic());
        String day = copy.key().day().toString();
        await("the day of %s final".formatted(copy.key()))
                .atMost(TIMEOUT)
                .until(
                        () ->
                                isAfter(tables.finalThrough(), day)
                                        || day.equals(tables.finalThrough()));
        ChaosReport.Recovery[] recovery = {null};
        workload.whilePaused(() -> unchecked(() -> recovery[0] = redeployWithTheCopyFirst(copy)));
        return recovery[0];
    }

    /**
     * With the ledger held: once the job is exact, the relay stopped (no heartbeat may move the
     * restored job's watermark before the copy), the job stopped with a savepoint, the copy
     * re-sent, the job deployed from the savepoint; the copy must land in late_events. It is then
     * taken out (a copy explained) and the relay started again.
     */
    private ChaosReport.Recovery redeployWithTheCopyFirst(OldChangeCopy copy) throws Exception {
        SinkTables tables = new SinkTables(deployment.sinkDb());
        TotalsInvariant.awaitHolds(deployment.ledger().endpoint(), deployment.sinkDb(), TIMEOUT);
        deployment.relay().kill();
        awaitCheckpointAfter(latestCheckpoint());
        ChaosReport.Recovery recovery =
                report.fault(
                        "restart",
                        "relay stopped; the job redeployed, a copy of %s's change of %s re-sent before it starts"
                                .formatted(copy.paymentId(), copy.key().day()));
        String savepoint = cluster.jobs().stopWithSavepoint(jobId);
        copy.republish(kafka.bootstrapServers(), deployment.topic());
        jobId = cluster.jobs().submit(job.withParallelism(parallelism).fromSavepoint(savepoint));
        cluster.jobs().awaitAllTasksRunning(jobId);
        recovery.running("running from the savepoint, the copy first in its topic");
        await("the re-sent copy %s judged late (in late_events)".formatted(copy.eventId()))
                .atMost(TIMEOUT)
                .until(() -> tables.lateEventIds().contains(copy.eventId()));
        recovery.checkpointed(awaitCheckpointAfter(latestRestored()));
        // Taken out only once a checkpoint begun after the copy was judged holds it: a failover
        // to an earlier one would replay the copy and write its row again.
        awaitCheckpointAfter(latestCheckpoint() + 1);
        tables.deleteLateEvent(copy.eventId());
        deployment.relay().start();
        return recovery;
    }

    /** A step that may throw what a process start or stop throws. */
    private interface Step {
        void run() throws Exception;
    }

    private static void unchecked(Step step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static final String MISREAD_COMMITTED =
            "SELECT count(*) FROM merchant_daily_totals_committed WHERE merchant_id LIKE '"
                    + MisreadingRelease.PREFIX
                    + "%'";

    /**
     * Kills the ledger's primary once the relay's slot is synchronized to the standby (without it
     * the relay could not resume there: that case is {@code LedgerFailoverITCase}'s), waits for the
     * workload and the relay to stop on it, promotes the standby and starts the relay again.
     */
    private ChaosReport.Recovery failLedgerOver() throws IOException {
        LedgerPair ledger = deployment.ledger();
        await("the relay's slot synchronized to the ledger's standby")
                .atMost(TIMEOUT)
                .until(() -> ledger.standbyHasSlot(deployment.relaySlot()));
        ChaosReport.Recovery recovery =
                report.fault("kill", "ledger primary killed (SIGKILL), standby promoted");
        ledger.crashPrimary();
        report.mark("other", "workload stopped: " + workload.awaitFailure().getMessage());
        deployment.relay().awaitExit();
        ledger.promoteStandby();
        deployment.relay().start();
        recovery.running("relay streaming from the promoted standby");
        return recovery;
    }

    /**
     * Copies the sink's database, waits until it has committed {@link #CHECKPOINTS_LOST} more
     * checkpoints and a day has become final since (so final rows are lost too), puts the copy back
     * (the sampler starts again from it) and waits until the job, failed on the sink's check, has
     * restored and runs.
     */
    private ChaosReport.Recovery putSinkDatabaseBack() {
        SinkTables tables = new SinkTables(deployment.sinkDb());
        long copiedAt = tables.committedCheckpoint();
        String finalAtCopy = tables.finalThrough();
        SinkDatabaseRollback copy = SinkDatabaseRollback.copy(deployment.sinkDb());
        try {
            await(
                            CHECKPOINTS_LOST
                                    + " checkpoints committed after the copy at "
                                    + copiedAt
                                    + " and a day final after "
                                    + finalAtCopy)
                    .atMost(TIMEOUT)
                    .until(
                            () ->
                                    tables.committedCheckpoint() >= copiedAt + CHECKPOINTS_LOST
                                            && isAfter(tables.finalThrough(), finalAtCopy));
            long restoredBefore = cluster.rest().checkpoints(jobId).restored();
            ChaosReport.Recovery recovery =
                    report.fault(
                            "restart",
                            "sink database back from committed %d to %d"
                                    .formatted(tables.committedCheckpoint(), copiedAt));
            sampler.whileTheDatabaseGoesBack(copy::restore);
            CheckpointStats restored =
                    cluster.jobs().awaitRestoredAndRunning(jobId, restoredBefore, TIMEOUT);
            recovery.running("restored from checkpoint " + restored.latestRestoredId());
            return recovery;
        } finally {
            copy.discard();
        }
    }

    private static boolean isAfter(String day, String than) {
        return day != null && (than == null || day.compareTo(than) > 0);
    }

    private long latestRestored() {
        return cluster.rest().checkpoints(jobId).latestRestoredId();
    }

    private record DeadBroker(
            int node,
            int partition,
            long endAtKill,
            long checkpointBefore,
            ChaosReport.Recovery recovery) {}

    /** Kills the node leading a partition drawn at random; returns once another node leads it. */
    private DeadBroker killPartitionLeader() {
        int partition = random.nextInt(deployment.partitions());
        int leader = kafka.leaderOf(deployment.topic(), partition);
        long checkpointBefore = latestCheckpoint();
        long endAtKill = endOffset(partition);
        ChaosReport.Recovery recovery =
                report.fault(
                        "kill",
                        "kill -9 of Kafka node %d, leader of partition %d"
                                .formatted(leader, partition));
        kafka.kill(leader);
        int successor = kafka.awaitLeaderOtherThan(deployment.topic(), partition, leader);
        recovery.running("partition %d led by node %d".formatted(partition, successor));
        return new DeadBroker(leader, partition, endAtKill, checkpointBefore, recovery);
    }

    /**
     * With the node still dead: the relay publishes into the partition through its new leader, and
     * the job reads past where the partition ended at the kill (the offsets it commits to its
     * group, named after the topic, at each checkpoint say how far); then the node is started again
     * on its data. The relay rides the kill out: it is the same process after it.
     */
    private void restart(DeadBroker dead) {
        String topic = deployment.topic();
        int partition = dead.partition();
        await(
                        "the relay publishing into partition %d without node %d"
                                .formatted(partition, dead.node()))
                .atMost(TIMEOUT)
                .until(() -> endOffset(partition) > dead.endAtKill());
        await(
                        "the job reading partition %d past offset %d without node %d"
                                .formatted(partition, dead.endAtKill(), dead.node()))
                .atMost(TIMEOUT)
                .until(() -> kafka.committedOffset(topic, topic, partition) > dead.endAtKill());
        if (!deployment.relay().isAlive()) {
            throw new AssertionError(
                    "the relay stopped when Kafka node %d was killed".formatted(dead.node()));
        }
        kafka.restart(dead.node());
        kafka.awaitFullyReplicated(deployment.topic());
        report.mark("restart", "Kafka node %d back, replicas in sync".formatted(dead.node()));
    }

    private long endOffset(int partition) {
        try {
            return kafka.endOffset(deployment.topic(), partition);
        } catch (Exception e) {
            throw new IllegalStateException("the end offset of partition " + partition, e);
        }
    }

    private long latestCheckpoint() {
        return cluster.rest().checkpoints(jobId).latestCompletedId();
    }

    private long awaitCheckpointAfter(long checkpoint) {
        return cluster.jobs().awaitCheckpointAfter(jobId, checkpoint).latestCompletedId();
    }
}
