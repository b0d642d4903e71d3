package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.it.testutils.ChaosClusterExtension;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.ClusterChaos;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.JobManagerKill;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SavepointAcknowledgementGate;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.StepBackSampler;
import io.effonce.it.testutils.TaskManagerPause;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SoakRun;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The leading JobManager killed with {@code kill -9} while a checkpoint is in progress, on the real
 * multi-process cluster with ZooKeeper high availability (a ZooKeeper server, a leader and a
 * standby JobManager, two TaskManagers), a new standby started after each kill; once together with
 * a TaskManager. The standby takes over, recovers the job (same job id) from the latest completed
 * checkpoint, every sink subtask flushes its range again, and the totals end equal to the ledger.
 * Each nested class has its own database and relay; the first three share one cluster, made whole
 * again after each (the fourth configures its own).
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class JobManagerKilledWithHighAvailabilityITCase {

    private static final int TASK_MANAGERS = 2;

    /**
     * Kills of the leader alone before the last, which takes a TaskManager with it. By default only
     * that last one: it is the leader's kill and more (CI's budget); the soak adds 8 of the leader
     * alone.
     */
    private static final int LEADER_KILLS = SoakRun.asked() ? 8 : 0;

    /** Payments committed before each kill (and after the last recovery): changes in flight. */
    private static final long BETWEEN_FAULTS = 2_000;

    private final Path dir = WorkDirs.fresh("jm-kill-ha");

    @RegisterExtension
    static final ChaosClusterExtension CLUSTER =
            ChaosClusterExtension.highlyAvailable(
                    WorkDirs.fresh("jm-kill-ha-cluster"), TASK_MANAGERS);

    @Nested
    class LeaderKilledMidCheckpoint {

        @Test
        void totalsAreExactAfterTheLeadingJobManagerIsKilledMidCheckpoint(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "jmkill", dir);
            SinkTables tables = new SinkTables(db);
            LocalFlinkCluster cluster = CLUSTER.cluster();
            ClusterChaos chaos = CLUSTER.chaos();
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = cluster.jobs();
                Set<String> earlier = cluster.rest().jobs().keySet();
                String jobId =
                        jobs.submit(JobJar.submission(db, kafka.servers(), relays.topic(), dir));
                jobs.awaitAllTasksRunning(jobId);
                jobs.awaitCompletedCheckpoints(jobId, 1);
                long takeoversAtStart = tables.ownershipTakeovers();
                ChaosReport report = new ChaosReport("jm-kill9-ha-cluster", db);
                List<JobManagerKill> kills = new ArrayList<>();
                WorkloadReport ledger;
                // The workload runs until it is stopped below: it is writing when each kill lands
                // and while the new leader restores the job, whatever the machine's speed.
                try (RunningWorkload workload =
                        RunningWorkload.start(Workloads.unbounded("jmkill", 800), db)) {
                    for (int kill = 1; kill <= LEADER_KILLS + 1; kill++) {
                        workload.awaitMore(BETWEEN_FAULTS);
                        boolean withTaskManager = kill == LEADER_KILLS + 1;
                        JobManagerKill k =
                                chaos.killLeadingJobManagerMidCheckpoint(
                                        jobId, withTaskManager, report);
                        kills.add(k);
                        TotalsInvariant.awaitExactAfter(k.recovery(), workload, db);
                    }
                    workload.awaitMore(BETWEEN_FAULTS);
                    ledger = workload.stopAndDrain();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);

                long flushes = tables.ownershipTakeovers() - takeoversAtStart;
                report.figure("payments", ledger.started());
                report.figure("kill -9 of the leading JobManager", LEADER_KILLS);
                report.figure("kill -9 of the leading JobManager and a TaskManager together", 1);
                report.figure(
                        "restored from (checkpoint in flight / last completed before / restored)",
                        kills.stream()
                                .map(
                                        k ->
                                                k.checkpointInFlight()
                                                        + "/"
                                                        + k.completedBeforeKill()
                                                        + "/"
                                                        + k.restoredFrom())
                                .toList());
                report.figure("sink subtask flushes (takeovers)", flushes);
                report.figure("late events", tables.count("late_events"));
                report.figure("result", comparison.summary());
                report.close();

                assertThat(jobsSince(cluster, earlier))
                        .as("the job keeps its id across leaders, and no other job appears")
                        .containsOnlyKeys(jobId);
                for (JobManagerKill k : kills) {
                    assertThat(k.restoredFrom())
                            .as(
                                    "restored under the new leader from the latest completed checkpoint")
                            .isGreaterThanOrEqualTo(k.completedBeforeKill());
                }
                // every recovery flushes both sink subtasks' ranges
                assertThat(flushes).isGreaterThanOrEqualTo(2L * kills.size());
                jobs.cancel(jobId);
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * The leading JobManager killed while a TaskManager of the job is frozen (SIGSTOP) in the
     * middle of a checkpoint; woken (SIGCONT) once the new leader restored the job elsewhere and
     * completed two checkpoints. The woken TaskManager's tasks are attempts of the old leader,
     * numbered by it: whatever its sink attempt tries must be fenced or refused, and the totals end
     * equal to the ledger.
     */
    @Nested
    class LeaderKilledWhileATaskManagerIsPaused {

        @Test
        void totalsAreExactAfterTheOldLeadersAttemptsWakeUnderTheNewOne(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "jmpause", dir);
            LocalFlinkCluster cluster = CLUSTER.cluster();
            ClusterChaos chaos = CLUSTER.chaos();
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = cluster.jobs();
                Set<String> earlier = cluster.rest().jobs().keySet();
                String jobId =
                        jobs.submit(JobJar.submission(db, kafka.servers(), relays.topic(), dir));
                jobs.awaitAllTasksRunning(jobId);
                jobs.awaitCompletedCheckpoints(jobId, 1);
                ChaosReport report = new ChaosReport("jm-kill-tm-sigstop-ha-cluster", db);
                String woken;
                try (RunningWorkload workload =
                        RunningWorkload.start(Workloads.unbounded("jmpause", 800), db)) {
                    workload.awaitMore(BETWEEN_FAULTS);
                    TaskManagerPause pause =
                            chaos.pauseTaskManagerAndKillLeaderMidCheckpoint(jobId, report);
                    woken = chaos.retireWokenTaskManager(pause);
                    TotalsInvariant.awaitExactAfter(pause.recovery(), workload, db);
                    workload.awaitMore(BETWEEN_FAULTS);
                    workload.stopAndDrain();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                jobs.awaitCheckpointAfter(
                        jobId, cluster.rest().checkpoints(jobId).latestCompletedId());
                TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                report.figure(
                        "the woken TaskManager's sink fenced or refused in its log",
                        woken.contains("FencedException")
                                || woken.contains("Refusing a stale attempt"));
                report.figure("result", comparison.summary());
                report.close();
                assertThat(jobsSince(cluster, earlier)).containsOnlyKeys(jobId);
                jobs.cancel(jobId);
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * The leading JobManager killed during a stop-with-savepoint whose savepoint completed: one
     * sink subtask acknowledged the savepoint, the other is held in its acknowledgement by the
     * database ({@link SavepointAcknowledgementGate}). The new leader recovers the job by itself
     * from the latest completed checkpoint, older than the savepoint (savepoints never enter
     * Flink's completed-checkpoint store): an ordinary restore for the sink, which must run on
     * exact, with nothing committed stepping back.
     */
    @Nested
    class LeaderKilledDuringAStopAfterItsSavepoint {

        @Test
        void theNewLeaderRestoresTheOlderCheckpointAndTheJobEndsExact(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "jmstop", dir);
            LocalFlinkCluster cluster = CLUSTER.cluster();
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = cluster.jobs();
                Set<String> earlier = cluster.rest().jobs().keySet();
                String jobId =
                        jobs.submit(JobJar.submission(db, kafka.servers(), relays.topic(), dir));
                jobs.awaitAllTasksRunning(jobId);
                ChaosReport report = new ChaosReport("jm-kill-during-stop-ha-cluster", db);
                try (StepBackSampler reader = new StepBackSampler(db);
                        RunningWorkload workload =
                                RunningWorkload.start(Workloads.unbounded("jmstop", 800), db)) {
                    workload.awaitMore(BETWEEN_FAULTS);
                    long checkpointed =
                            jobs.awaitCheckpointAfter(
                                            jobId,
                                            cluster.rest().checkpoints(jobId).latestCompletedId())
                                    .latestCompletedId();
                    FlinkProcess leader = cluster.leadingJobManager();
                    ChaosReport.Recovery recovery;
                    long savepoint;
                    SavepointAcknowledgementGate gate =
                            SavepointAcknowledgementGate.atSecondOfTwoSinkSubtasks(db);
                    try (gate) {
                        cluster.rest()
                                .triggerStop(
                                        jobId, cluster.savepointDir().toUri().toString(), false);
                        gate.awaitHeldBack(TotalsInvariant.TIMEOUT);
                        await("the first sink subtask's acknowledgement of the savepoint")
                                .atMost(TotalsInvariant.TIMEOUT)
                                .until(() -> gate.acknowledgedBeforeTheHeld() > 0);
                        // Read now: the restore that follows clears an acknowledgement newer than
                        // the checkpoint it restores (the savepoint is no proof any more).
                        savepoint = gate.acknowledgedBeforeTheHeld();
                        recovery =
                                report.fault(
                                        "kill",
                                        "kill -9 of leading %s during a stop whose savepoint %d completed"
                                                .formatted(leader.name(), savepoint));
                        cluster.killJobManager(leader);
                        cluster.startJobManager();
                        recovery.newLeader(
                                cluster.awaitNewLeader(leader, TotalsInvariant.TIMEOUT).name()
                                        + " leads");
                    }
                    CheckpointStats after =
                            jobs.awaitRestoredAndRunning(jobId, 0, TotalsInvariant.TIMEOUT);
                    recovery.running("restored from checkpoint " + after.latestRestoredId());
                    recovery.checkpointed(
                            jobs.awaitCheckpointAfter(jobId, after.latestRestoredId())
                                    .latestCompletedId());
                    report.figure("savepoint acknowledged by one sink subtask of two", savepoint);
                    report.figure("checkpoint the new leader restored", after.latestRestoredId());
                    assertThat(savepoint).isGreaterThan(checkpointed);
                    assertThat(after.latestRestoredId())
                            .as("the new leader restored a checkpoint older than the savepoint")
                            .isLessThan(savepoint);
                    assertThat(gate.acknowledgedBeforeTheHeld())
                            .as("the restore of an older checkpoint cleared the acknowledgement")
                            .isZero();
                    TotalsInvariant.awaitExactAfter(recovery, workload, db);
                    workload.awaitMore(BETWEEN_FAULTS);
                    workload.stopAndDrain();
                    TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                    jobs.awaitCheckpointAfter(
                            jobId, cluster.rest().checkpoints(jobId).latestCompletedId());
                    TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                    report.figure("committed keys that stepped back", reader.committedStepsBack());
                    assertThat(reader.committedStepsBack())
                            .as("committed totals never step back")
                            .isZero();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                report.figure("result", comparison.summary());
                report.close();
                assertThat(jobsSince(cluster, earlier))
                        .as("the job ran on by itself under its id")
                        .containsOnlyKeys(jobId);
                jobs.cancel(jobId);
            } finally {
                relays.dropSlot();
            }
        }
    }

    /** The jobs the cluster lists, but for those of the tests before on the shared cluster. */
    private static Map<String, String> jobsSince(LocalFlinkCluster cluster, Set<String> earlier) {
        Map<String, String> jobs = new HashMap<>(cluster.rest().jobs());
        jobs.keySet().removeAll(earlier);
        return jobs;
    }

    // A variant of the failover above: run with -Deffonce.soak=true (the root pom's "long").
    @Tag("long")
    @Nested
    class LeaderKilledBeforeTheFirstCheckpoint {

        /**
         * A failover before the first checkpoint completes: the new leader recovers the same job
         * (same job id, same run id, both in the recovered job graph) with no state. Its sink
         * subtasks see their own run as the previous owner and flush from "checkpoint 0" — deleting
         * what the erased attempt wrote — instead of refusing a fresh start; the replay from the
         * earliest offsets brings the totals back to the ledger. They restored what the old
         * leader's attempts restored (nothing), under another execution graph, so each waits for a
         * barrier of its own before it takes its range (sink/README.md, rows 3 and 3b): with no
         * checkpoint for an hour, a savepoint's.
         */
        @Test
        void aFailoverBeforeTheFirstCheckpointFlushesWhatTheErasedAttemptWrote(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "jmfirst", dir);
            SinkTables tables = new SinkTables(db);
            try (LocalFlinkCluster cluster =
                            LocalFlinkCluster.start(
                                    ClusterSpec.builder(dir.resolve("flink-first"))
                                            .taskManagers(TASK_MANAGERS)
                                            .highAvailability()
                                            .fastFailover()
                                            .quickStartJvms()
                                            .config("execution.checkpointing.interval", "1h")
                                            .build());
                    LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = cluster.jobs();
                String jobId =
                        jobs.submit(JobJar.submission(db, kafka.servers(), relays.topic(), dir));
                jobs.awaitAllTasksRunning(jobId);
                WorkloadReport first =
                        Workloads.runAsync(Workloads.options("jmfirst", 2_000, 0), db).get();
                TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                assertThat(cluster.rest().checkpoints(jobId).completed()).isZero();
                long takeovers = tables.ownershipTakeovers();

                FlinkProcess leader = cluster.leadingJobManager();
                cluster.killJobManager(leader);
                cluster.startJobManager();
                cluster.awaitNewLeader(leader, FlinkJobs.DEFAULT_TIMEOUT);
                // A refused fresh start would fail the sink's tasks in open(): never all RUNNING.
                jobs.awaitAllTasksRunning(jobId);
                assertThat(tables.ownershipTakeovers())
                        .as("no takeover before the new leader's first barrier")
                        .isEqualTo(takeovers);
                String trigger =
                        cluster.rest()
                                .triggerSavepoint(
                                        jobId, dir.resolve("savepoints").toUri().toString());
                await("the savepoint whose barrier is the recovered attempts' first")
                        .atMost(FlinkJobs.DEFAULT_TIMEOUT)
                        .until(() -> cluster.rest().savepointLocation(jobId, trigger) != null);
                await("both sink subtasks of the recovered job taking over their ranges")
                        .atMost(FlinkJobs.DEFAULT_TIMEOUT)
                        .until(() -> tables.ownershipTakeovers() >= takeovers + 2);
                assertThat(cluster.rest().jobs()).containsOnlyKeys(jobId);
                assertThat(cluster.rest().checkpoints(jobId).restored()).isZero();
                // the replay from the earliest offsets rewrote what the flush removed
                TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);

                // After the first part's event times: with no checkpoint for an hour, a late
                // change would wait in the late_events writer (flushed at a barrier or 500 rows).
                Workloads.runAsync(
                                Workloads.options(
                                        "jmfirst2",
                                        1_000,
                                        0,
                                        first.lastEventTime().plus(Duration.ofMinutes(5))),
                                db)
                        .get();
                TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                jobs.cancel(jobId);
            } finally {
                relays.dropSlot();
            }
        }
    }
}
