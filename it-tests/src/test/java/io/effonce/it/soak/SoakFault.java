package io.effonce.it.soak;

/**
 * A fault the soak can draw. The overlaps inject a second fault while the recovery from the first
 * is still in progress.
 */
public enum SoakFault {
    /** {@code kill -9} of a TaskManager of the job while a checkpoint is in flight. */
    TASK_MANAGER_KILL,
    /** SIGSTOP of a TaskManager mid-checkpoint, past the heartbeat timeout, then SIGCONT. */
    TASK_MANAGER_PAUSE,
    /** {@code kill -9} of the leading JobManager mid-checkpoint; the standby takes over. */
    JOB_MANAGER_KILL,
    /** {@code kill -9} of the Kafka node leading a partition of the change topic, then restart. */
    BROKER_KILL,
    /** {@code kill -9} of the relay, started again from its offsets. */
    RELAY_KILL,
    /** Stop-with-savepoint, submitted again from it with the other parallelism (2 and 3). */
    RESCALE,
    /** Stop-with-savepoint, submitted again from it unchanged: a redeploy. */
    REDEPLOY,
    /** A partition's leader killed, and while it is down a TaskManager killed mid-checkpoint. */
    BROKER_KILL_DURING_TASK_MANAGER_RECOVERY,
    /** The relay killed, and while it is down the leading JobManager killed mid-checkpoint. */
    RELAY_KILL_DURING_JOB_MANAGER_RECOVERY;

    /** Whether it is two faults, the second in the recovery from the first. */
    public boolean isOverlap() {
        return name().contains("_DURING_");
    }
}
