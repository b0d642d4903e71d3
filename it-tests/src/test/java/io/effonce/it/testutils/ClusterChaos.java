package io.effonce.it.testutils;

import static org.awaitility.Awaitility.await;

import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.ClusterSpec;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.testing.faults.PostgresLinkCut;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults on the real multi-process cluster: {@code kill -9} of the TaskManager running the job, or
 * of the leading JobManager (alone or with a TaskManager), while a checkpoint is in progress (seen
 * through the REST API's checkpoint statistics), with a replacement started.
 */
public final class ClusterChaos {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterChaos.class);

    /** Upper bound for each wait; a kill costs seconds here, tens of seconds on a busy machine. */
    static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final LocalFlinkCluster cluster;
    private final int taskManagers;

    /**
     * The cluster the chaos tests run on: {@code taskManagers} TaskManagers, fast failure
     * detection, a checkpoint every second (at least 200 ms apart) so faults find one in flight.
     * Every 500 ms cost the whole local-cluster class a fifth more CPU (420 s against 342 s) for
     * nothing a fault needs. The same second while the job presumes a backlog (30 s after each
     * start when a source subtask has no partition): a fault and each check of the totals wait for
     * a checkpoint, and the backlog's longer interval is {@code BacklogReportingSourceITCase}'s.
     */
    private static final String QUICK_JVM_WITH_SHORT_PGJDBC_CLEANER =
            ClusterSpec.QUICK_START_JVM + " -Dpgjdbc.config.cleanup.thread.ttl=1000";

    public static ClusterSpec.Builder chaosCluster(Path dir, int taskManagers) {
        return ClusterSpec.builder(dir)
                .taskManagers(taskManagers)
                .fastFailover()
                .quickStartJvms()
                .config("execution.checkpointing.interval", "1s")
                .config("execution.checkpointing.interval-during-backlog", "1s")
                .config("execution.checkpointing.min-pause", "200ms")
                // pgjdbc's cleaner thread, which holds a job's class loader, ends 1 s after the
                // last connection instead of 30 s: a released loader is seen released sooner.
                // (Beside the quick-start flag; env.java.opts.all carries Flink's --add-opens.)
                .config("env.java.opts.jobmanager", QUICK_JVM_WITH_SHORT_PGJDBC_CLEANER)
                .config("env.java.opts.taskmanager", QUICK_JVM_WITH_SHORT_PGJDBC_CLEANER);
    }

    public ClusterChaos(LocalFlinkCluster cluster, int taskManagers) {
        this.cluster = cluster;
        this.taskManagers = taskManagers;
    }

    /**
     * Kills a TaskManager of {@code jobId} as soon as a checkpoint is in progress, starts a
     * replacement, and waits until the job restored, runs again and completed its first checkpoint
     * after the restore, marking each moment in {@code report}. Returns the fault's recovery (the
     * test marks "exact" on it) and whether the checkpoint in flight failed (the kill hit it)
     * rather than completing first.
     */
    public TaskManagerKill killTaskManagerMidCheckpoint(String jobId, ChaosReport report) {
        FlinkJobs jobs = cluster.jobs();
        Strike strike = strikeMidCheckpoint(jobId, "kill", "kill -9 of", report);
        CheckpointStats before = strike.before();
        FlinkProcess victim = strike.victim();
        long inFlight = strike.inFlight();
        ChaosReport.Recovery recovery = strike.recovery();
        cluster.killTaskManager(victim.index());
        cluster.startTaskManager();
        CheckpointStats after = jobs.awaitRestoredAndRunning(jobId, before.restored(), TIMEOUT);
        recovery.running("restored from checkpoint " + after.latestRestoredId());
        recovery.checkpointed(
                jobs.awaitCheckpointAfter(jobId, after.latestRestoredId()).latestCompletedId());
        cluster.awaitTaskManagers(taskManagers, TIMEOUT);
        String status = checkpointStatus(jobId, inFlight);
        LOG.info(
                "kill -9 of {} during checkpoint {} (now {}); restored from {}, restores {}",
                victim.name(),
                inFlight,
                status,
                after.latestRestoredId(),
                after.restored());
        return new TaskManagerKill(recovery, "FAILED".equals(status));
    }

    /**
     * Freezes a TaskManager of {@code jobId} with SIGSTOP as soon as a checkpoint is in progress,
     * starts a replacement, waits until the JobManager declared it lost, the job restored and ran
     * elsewhere and completed two checkpoints without it, then wakes it with SIGCONT: its tasks are
     * stale attempts, unaware that time passed. Marks each moment in {@code report}.
     */
    public TaskManagerPause pauseTaskManagerMidCheckpoint(String jobId, ChaosReport report) {
        Strike strike = strikeMidCheckpoint(jobId, "pause", "SIGSTOP of", report);
        strike.victim().pause();
        cluster.startTaskManager();
        TaskManagerPause pause =
                wakeOnceMovedOn(jobId, strike.before(), strike.victim(), strike.recovery(), report);
        LOG.info("SIGSTOP of {} during checkpoint {}", strike.victim().name(), strike.inFlight());
        return pause;
    }

    /** A fault about to land on a TaskManager of the job while checkpoint {@code inFlight} runs. */
    private record Strike(
            CheckpointStats before,
            FlinkProcess victim,
            long inFlight,
            ChaosReport.Recovery recovery) {}

    /**
     * Picks a TaskManager of {@code jobId}, waits until a checkpoint is in progress and marks the
     * fault ({@code action} of the TaskManager) in {@code report}: the fault lands right after.
     */
    private Strike strikeMidCheckpoint(
            String jobId, String kind, String action, ChaosReport report) {
        CheckpointStats before = cluster.rest().checkpoints(jobId);
        FlinkProcess victim =
                cluster.taskManager(cluster.jobs().taskManagersOf(jobId).iterator().next());
        long inFlight = awaitCheckpointInProgress(jobId);
        ChaosReport.Recovery recovery =
                report.fault(
                        kind,
                        "%s %s during checkpoint %d".formatted(action, victim.name(), inFlight));
        return new Strike(before, victim, inFlight, recovery);
    }

    /**
     * Waits until the job, without the frozen {@code victim}, restored and ran and completed two
     * checkpoints, then wakes it (SIGCONT).
     */
    private TaskManagerPause wakeOnceMovedOn(
            String jobId,
            CheckpointStats before,
            FlinkProcess victim,
            ChaosReport.Recovery recovery,
            ChaosReport report) {
        FlinkJobs jobs = cluster.jobs();
        CheckpointStats after = jobs.awaitRestoredAndRunning(jobId, before.restored(), TIMEOUT);
        recovery.running("restored from checkpoint " + after.latestRestoredId());
        long first = jobs.awaitCheckpointAfter(jobId, after.latestRestoredId()).latestCompletedId();
        recovery.checkpointed(first);
        long second = jobs.awaitCheckpointAfter(jobId, first).latestCompletedId();
        long logOffset = victim.logFile().toFile().length();
        report.mark(
                "resume",
                "SIGCONT of %s: checkpoints %d and %d completed without it"
                        .formatted(victim.name(), first, second));
        victim.resume();
        LOG.info(
                "{} woken: the job restored from {} and completed checkpoint {} without it",
                victim.name(),
                after.latestRestoredId(),
                second);
        return new TaskManagerPause(recovery, victim, logOffset);
    }

    /** A TaskManager frozen before a takeover: the pause, and the sink attempt that waited. */
    public record TakeoverPause(TaskManagerPause pause, String task) {}

    /**
     * Kills a TaskManager of {@code jobId} mid-checkpoint with the restore's takeovers held ({@link
     * TakeoverHolds}), freezes (SIGSTOP) a TaskManager where a sink subtask waits to take its key
     * groups over, lets the takeovers go, starts replacements, waits until the JobManager declared
     * the frozen one lost, the job restored and ran elsewhere and completed two checkpoints without
     * it, then wakes it (SIGCONT): the waiting attempt goes on to a takeover that the fence must
     * refuse as stale. Marks each moment in {@code report}.
     */
    public TakeoverPause pauseTaskManagerBeforeTakeover(
            String jobId, TakeoverHolds holds, ChaosReport report) {
        FlinkJobs jobs = cluster.jobs();
        CheckpointStats before = cluster.rest().checkpoints(jobId);
        FlinkProcess killed = cluster.taskManager(jobs.taskManagersOf(jobId).iterator().next());
        // Held before the wait, so that nothing stands between the checkpoint seen in flight and
        // the kill; let go whatever happens, or every later takeover would wait for good.
        holds.hold();
        ChaosReport.Recovery recovery;
        TakeoverHolds.Holder holder;
        FlinkProcess victim;
        try {
            long inFlight = awaitCheckpointInProgress(jobId);
            recovery =
                    report.fault(
                            "kill",
                            "kill -9 of %s during checkpoint %d, the restore's takeovers held"
                                    .formatted(killed.name(), inFlight));
            cluster.killTaskManager(killed.index());
            cluster.startTaskManager();
            holder = holds.awaitHolder(TIMEOUT);
            victim = processOf(holder);
            report.mark(
                    "pause",
                    "SIGSTOP of %s, where %s waits to take over"
                            .formatted(victim.name(), holder.task()));
            victim.pause();
        } finally {
            holds.release();
        }
        cluster.startTaskManager();
        return new TakeoverPause(
                wakeOnceMovedOn(jobId, before, victim, recovery, report), holder.task());
    }

    private FlinkProcess processOf(TakeoverHolds.Holder holder) {
        return cluster.liveTaskManagers().stream()
                .filter(tm -> tm.pid() == holder.pid())
                .findFirst()
                .orElseThrow(
                        () ->
                                new AssertionError(
                                        "no TaskManager of process %d, where %s waits"
                                                .formatted(holder.pid(), holder.task())));
    }

    /**
     * Waits until the attempt that waited on a woken TaskManager has finished its start (Flink logs
     * "Freeing task resources" when a task's thread is done; the TaskManager fails the task as soon
     * as it wakes, but the thread goes on with its takeover and flush) or the process has gone.
     * Stopping the TaskManager before would end a stale takeover half-way.
     */
    public void awaitWokenTakeover(TakeoverPause paused) {
        TaskManagerPause pause = paused.pause();
        // The sink names an attempt "<task name> (i/n)#a attempt a", Flink "<task name> (i/n)#a
        // (id)"
        String task = paused.task().substring(0, paused.task().lastIndexOf(" attempt "));
        await("the woken %s's start to end".formatted(paused.task()))
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () ->
                                !pause.victim().isAlive()
                                        || pause.logSinceResume()
                                                .contains("Freeing task resources for " + task));
        LOG.info(
                "The woken {} decided: {}",
                paused.task(),
                pause.logSinceResume()
                        .lines()
                        .filter(line -> line.contains(paused.task() + ": "))
                        .findFirst()
                        .orElse("(nothing logged)"));
    }

    /**
     * Waits until a woken TaskManager's tasks of the old attempt ended (failed or cancelled: the
     * JobManager no longer knows them) or the process left, then stops it, so the cluster has
     * {@code taskManagers} again. Returns what it logged after waking.
     */
    public String retireWokenTaskManager(TaskManagerPause pause) {
        await("the woken %s's stale tasks to end".formatted(pause.victim().name()))
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> {
                            String log = pause.logSinceResume();
                            return !pause.victim().isAlive()
                                    || log.contains("to FAILED")
                                    || log.contains("to CANCELED");
                        });
        String log = pause.logSinceResume();
        pause.victim().stop(Duration.ofSeconds(30));
        cluster.awaitTaskManagers(taskManagers, TIMEOUT);
        return log;
    }

    /**
     * Cuts the TaskManagers of {@code jobId} from PostgreSQL in the middle of a sink transaction
     * (after its fence check, before its COMMIT: the server keeps the session idle in transaction,
     * holding the fence rows), then kills them ({@code kill -9}), starts replacements and lets the
     * clients' side of the cut connections go. The new attempts' takeovers must wait for the stuck
     * sessions, but only as long as the server's bounds allow. Marks each moment in {@code report};
     * returns the recovery and how many sessions the server held idle in transaction.
     */
    public ChaosReport.Recovery cutFromPostgresMidTransaction(
            String jobId, PostgresLinkCut link, ChaosReport report) throws InterruptedException {
        FlinkJobs jobs = cluster.jobs();
        CheckpointStats before = cluster.rest().checkpoints(jobId);
        List<FlinkProcess> victims =
                jobs.taskManagersOf(jobId).stream().map(cluster::taskManager).toList();
        link.cutAfter(sql -> sql.contains("sink_fences") && sql.contains("FOR SHARE"));
        if (!link.awaitCut(TIMEOUT)) {
            throw new AssertionError("No sink transaction to cut within " + TIMEOUT);
        }
        ChaosReport.Recovery recovery =
                report.fault(
                        "cut",
                        "link to PostgreSQL cut mid-transaction (%d connections), kill -9 of %s"
                                .formatted(
                                        link.frozenLinks(),
                                        victims.stream().map(FlinkProcess::name).toList()));
        victims.forEach(FlinkProcess::kill);
        victims.forEach(v -> cluster.startTaskManager());
        link.dropClients();
        CheckpointStats after = jobs.awaitRestoredAndRunning(jobId, before.restored(), TIMEOUT);
        recovery.running("restored from checkpoint " + after.latestRestoredId());
        recovery.checkpointed(
                jobs.awaitCheckpointAfter(jobId, after.latestRestoredId()).latestCompletedId());
        cluster.awaitTaskManagers(taskManagers, TIMEOUT);
        return recovery;
    }

    /**
     * Kills the leading JobManager as soon as a checkpoint of {@code jobId} is in progress — and,
     * if {@code withTaskManager}, at the same moment a TaskManager of the job — starts a new
     * standby (and a replacement TaskManager), and waits for each moment of the recovery, marked in
     * {@code report}: a new leader, the job restored under it from a checkpoint at least as new as
     * the last one completed before the kill and running, its first checkpoint after that. The job
     * keeps its id: the new leader recovers it from ZooKeeper and the HA storage.
     */
    public JobManagerKill killLeadingJobManagerMidCheckpoint(
            String jobId, boolean withTaskManager, ChaosReport report) {
        FlinkJobs jobs = cluster.jobs();
        FlinkProcess leader = cluster.leadingJobManager();
        FlinkProcess taskManager =
                withTaskManager
                        ? cluster.taskManager(jobs.taskManagersOf(jobId).iterator().next())
                        : null;
        long inFlight = awaitCheckpointInProgress(jobId);
        long completedBefore = cluster.rest().checkpoints(jobId).latestCompletedId();
        ChaosReport.Recovery recovery =
                report.fault(
                        "kill",
                        "kill -9 of leading %s%s during checkpoint %d (last completed %d)"
                                .formatted(
                                        leader.name(),
                                        withTaskManager ? " and " + taskManager.name() : "",
                                        inFlight,
                                        completedBefore));
        if (withTaskManager) {
            // both at once: the TaskManager first, so it cannot finish the checkpoint meanwhile
            taskManager.kill();
        }
        cluster.killJobManager(leader);
        cluster.startJobManager();
        if (withTaskManager) {
            cluster.startTaskManager();
        }
        FlinkProcess newLeader = cluster.awaitNewLeader(leader, TIMEOUT);
        recovery.newLeader(newLeader.name() + " leads");
        // the new leader's JobMaster counts restores from zero: one restore means it restored
        CheckpointStats after = jobs.awaitRestoredAndRunning(jobId, 0, TIMEOUT);
        recovery.running(
                "restored from checkpoint %d under %s"
                        .formatted(after.latestRestoredId(), newLeader.name()));
        recovery.checkpointed(
                jobs.awaitCheckpointAfter(jobId, after.latestRestoredId()).latestCompletedId());
        cluster.awaitTaskManagers(taskManagers, TIMEOUT);
        LOG.info(
                "kill -9 of leading {} during checkpoint {}; {} leads, restored from {}",
                leader.name(),
                inFlight,
                newLeader.name(),
                after.latestRestoredId());
        return new JobManagerKill(
                recovery, inFlight, completedBefore, after.latestRestoredId(), newLeader);
    }

    /**
     * Freezes a TaskManager of {@code jobId} with SIGSTOP while a checkpoint is in flight and kills
     * the leading JobManager ({@code kill -9}); a new JobManager and a replacement TaskManager
     * start. Once the new leader restored the job and completed two checkpoints without the frozen
     * TaskManager, wakes it with SIGCONT: its tasks are attempts of the old leader, numbered by it,
     * unaware that another leads. Marks each moment in {@code report}.
     */
    public TaskManagerPause pauseTaskManagerAndKillLeaderMidCheckpoint(
            String jobId, ChaosReport report) {
        FlinkJobs jobs = cluster.jobs();
        FlinkProcess leader = cluster.leadingJobManager();
        FlinkProcess victim = cluster.taskManager(jobs.taskManagersOf(jobId).iterator().next());
        long inFlight = awaitCheckpointInProgress(jobId);
        ChaosReport.Recovery recovery =
                report.fault(
                        "pause+kill",
                        "SIGSTOP of %s and kill -9 of leading %s during checkpoint %d"
                                .formatted(victim.name(), leader.name(), inFlight));
        victim.pause();
        cluster.killJobManager(leader);
        cluster.startJobManager();
        cluster.startTaskManager();
        FlinkProcess newLeader = cluster.awaitNewLeader(leader, TIMEOUT);
        recovery.newLeader(newLeader.name() + " leads");
        CheckpointStats after = jobs.awaitRestoredAndRunning(jobId, 0, TIMEOUT);
        recovery.running(
                "restored from checkpoint %d under %s"
                        .formatted(after.latestRestoredId(), newLeader.name()));
        long first = jobs.awaitCheckpointAfter(jobId, after.latestRestoredId()).latestCompletedId();
        recovery.checkpointed(first);
        long second = jobs.awaitCheckpointAfter(jobId, first).latestCompletedId();
        long logOffset = victim.logFile().toFile().length();
        report.mark(
                "resume",
                "SIGCONT of %s: checkpoints %d and %d completed under %s without it"
                        .formatted(victim.name(), first, second, newLeader.name()));
        victim.resume();
        return new TaskManagerPause(recovery, victim, logOffset);
    }

    /** Waits until a checkpoint of the job is in progress; returns its id. */
    private long awaitCheckpointInProgress(String jobId) {
        long[] inFlight = {-1};
        await("a checkpoint of job %s in progress".formatted(jobId))
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(10))
                .ignoreExceptions()
                .until(
                        () -> {
                            List<Long> ids = cluster.rest().checkpointsInProgress(jobId);
                            inFlight[0] = ids.isEmpty() ? -1 : ids.get(0);
                            return inFlight[0] >= 0;
                        });
        return inFlight[0];
    }

    private String checkpointStatus(String jobId, long id) {
        try {
            return cluster.rest().checkpointStatus(jobId, id);
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** Starts TaskManagers until {@code taskManagers} are alive and registered. */
    public void restoreTaskManagers() {
        for (int i = cluster.liveTaskManagers().size(); i < taskManagers; i++) {
            cluster.startTaskManager();
        }
        cluster.awaitTaskManagers(taskManagers, TIMEOUT);
    }
}
