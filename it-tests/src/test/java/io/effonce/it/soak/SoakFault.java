package io.effonce.it.soak;

import java.util.List;
import java.util.Locale;

/**
 * A fault the soak can draw. The overlaps inject a second fault while the recovery from the first
 * is still in progress.
 */
public enum SoakFault {
    /** {@code kill -9} of a TaskManager of the job while a checkpoint is in flight. */
    TASK_MANAGER_KILL,
    /** SIGSTOP of a TaskManager mid-checkpoint, past the heartbeat timeout, then SIGCONT. */
    TASK_MANAGER_PAUSE,
    /**
     * A TaskManager killed mid-checkpoint with the restore's takeovers held, another frozen
     * (SIGSTOP) where a sink subtask waits to take its key groups over, the takeovers let go; woken
     * (SIGCONT) after the job restored elsewhere and completed two checkpoints, its attempt goes on
     * to a stale takeover.
     */
    TASK_MANAGER_PAUSE_BEFORE_TAKEOVER,
    /** {@code kill -9} of the leading JobManager mid-checkpoint; the standby takes over. */
    JOB_MANAGER_KILL,
    /** {@code kill -9} of the Kafka node leading a partition of the change topic, then restart. */
    BROKER_KILL,
    /** {@code kill -9} of the relay, started again from its offsets. */
    RELAY_KILL,
    /**
     * The TaskManagers cut from the sink's database between a fence check and its COMMIT (the
     * server holds the transactions open), then killed.
     */
    SINK_CUT,
    /**
     * The sink's database put back to a copy three committed checkpoints old, its sessions ended: a
     * promoted asynchronous standby, or a backup restored.
     */
    SINK_DATABASE_BACK,
    /**
     * The ledger's primary killed ({@code SIGKILL}) mid-workload, its asynchronous standby
     * promoted; the relay, stopped on its broken stream, started again (a supervisor's restart) and
     * resuming from its failover slot; the workload reconnecting to the new primary.
     */
    LEDGER_FAILOVER,
    /** Stop-with-savepoint, submitted again from it with the other parallelism (2 and 3). */
    RESCALE,
    /** Stop-with-savepoint, submitted again from it unchanged: a redeploy. */
    REDEPLOY,
    /**
     * With the ledger held and the job caught up, the relay stopped, the job stopped with a
     * savepoint, a copy of a change of a day final long ago re-sent (what a relay restarted from an
     * old position sends), the job started from the savepoint: the copy is the first record it
     * reads, before any heartbeat moved its watermark.
     */
    OLD_COPY_AFTER_REDEPLOY,
    /**
     * An operator's rollback of a bad release: stop-with-savepoint, a release that misreads every
     * merchant id deployed from it until it has committed totals under keys the job never produces,
     * then cancelled and the job deployed again from the same savepoint.
     */
    BAD_RELEASE_ROLLED_BACK,
    /** A partition's leader killed, and while it is down a TaskManager killed mid-checkpoint. */
    BROKER_KILL_DURING_TASK_MANAGER_RECOVERY(BROKER_KILL, TASK_MANAGER_KILL),
    /** The relay killed, and while it is down the leading JobManager killed mid-checkpoint. */
    RELAY_KILL_DURING_JOB_MANAGER_RECOVERY(RELAY_KILL, JOB_MANAGER_KILL),
    /**
     * The sink's database put back, and once the job restored on it, the leading JobManager killed
     * mid-checkpoint, before the repaired rows were committed.
     */
    JOB_MANAGER_KILL_DURING_SINK_REPAIR(SINK_DATABASE_BACK, JOB_MANAGER_KILL),
    /**
     * The ledger failed over, and while the relay catches up from the promoted standby, the Kafka
     * node leading a partition killed.
     */
    BROKER_KILL_DURING_LEDGER_RECOVERY(LEDGER_FAILOVER, BROKER_KILL);

    private final List<SoakFault> parts;

    /** Its name in the soak's picture: {@code BROKER_KILL} is "broker kill", a TaskManager "TM". */
    public String shortName() {
        return name().toLowerCase(Locale.ROOT)
                .replace("task_manager", "TM")
                .replace("job_manager", "JM")
                .replace('_', ' ');
    }

    SoakFault(SoakFault... parts) {
        this.parts = List.of(parts);
    }

    /** The two faults an overlap injects, the first in the recovery from the second; else none. */
    public List<SoakFault> parts() {
        return parts;
    }

    /** Whether it is two faults, the second in the recovery from the first. */
    public boolean isOverlap() {
        return !parts.isEmpty();
    }
}
