package io.effonce.it.testutils;

/**
 * One TaskManager killed mid-checkpoint: its recovery in the chaos report, and whether the
 * checkpoint in flight failed (the kill hit it) rather than completing first.
 */
public record TaskManagerKill(ChaosReport.Recovery recovery, boolean hitCheckpointInFlight) {}
