package io.effonce.it.testutils;

import io.effonce.cluster.FlinkProcess;

/**
 * The leading JobManager killed mid-checkpoint: its recovery in the chaos report, the checkpoint in
 * flight, the last one completed before the kill, the one the job restored from under the new
 * leader, and that leader.
 */
public record JobManagerKill(
        ChaosReport.Recovery recovery,
        long checkpointInFlight,
        long completedBeforeKill,
        long restoredFrom,
        FlinkProcess newLeader) {}
