package io.effonce.testing.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.CheckpointStatsCounts;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * A job's checkpoint counts on a MiniCluster, the events a failover test waits for: a checkpoint
 * completed (the state a kill will go back to), a restore happened (the kill was noticed).
 */
public final class CheckpointCounts {

    private CheckpointCounts() {}

    public static long completed(MiniCluster cluster, JobID job) throws Exception {
        return counts(cluster, job).getNumberOfCompletedCheckpoints();
    }

    public static long restored(MiniCluster cluster, JobID job) throws Exception {
        return counts(cluster, job).getNumberOfRestoredCheckpoints();
    }

    private static CheckpointStatsCounts counts(MiniCluster cluster, JobID job) throws Exception {
        return cluster.getExecutionGraph(job).get().getCheckpointStatsSnapshot().getCounts();
    }
}
