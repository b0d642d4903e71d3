package io.effonce.it.soak;

import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.ClusterChaos;
import io.effonce.it.testutils.TaskManagerPause;
import io.effonce.testing.kafka.KafkaBrokers;
import java.util.List;
import java.util.Random;

/**
 * Applies a {@link SoakFault} to the soak's deployment and waits for the recovery from it: the job
 * running again and past a new checkpoint, every killed process replaced or started again. Each
 * moment is marked in the report; the caller then checks the totals at a quiescent ledger.
 */
final class Nemesis {

    private final LocalFlinkCluster cluster;
    private final ClusterChaos chaos;
    private final KafkaBrokers kafka;
    private final RelayProcess relay;
    private final String topic;
    private final int partitions;
    private final ChaosReport report;
    private String jobId;
    private int parallelism;
    private final Random random;

    Nemesis(
            LocalFlinkCluster cluster,
            ClusterChaos chaos,
            KafkaBrokers kafka,
            RelayProcess relay,
            String topic,
            int partitions,
            String jobId,
            int parallelism,
            ChaosReport report,
            Random random) {
        this.cluster = cluster;
        this.chaos = chaos;
        this.kafka = kafka;
        this.relay = relay;
        this.topic = topic;
        this.partitions = partitions;
        this.jobId = jobId;
        this.parallelism = parallelism;
        this.report = report;
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
                relay.kill();
                relay.start();
                recovery.running("relay streaming again from its offsets");
                recovery.checkpointed(awaitCheckpointAfter(checkpointBefore));
                yield List.of(recovery);
            }
            case RESCALE -> List.of(resubmit("rescale", parallelism == 2 ? 3 : 2));
            case REDEPLOY -> List.of(resubmit("restart", parallelism));
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
                relay.kill();
                ChaosReport.Recovery second =
                        chaos.killLeadingJobManagerMidCheckpoint(jobId, false, report).recovery();
                relay.start();
                first.running("relay streaming again from its offsets");
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
        jobId = cluster.jobs().rescale(jobId, next);
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

    private record DeadBroker(
            int node, int partition, long checkpointBefore, ChaosReport.Recovery recovery) {}

    /** Kills the node leading a partition drawn at random; returns once another node leads it. */
    private DeadBroker killPartitionLeader() {
        int partition = random.nextInt(partitions);
        int leader = kafka.leaderOf(topic, partition);
        long checkpointBefore = latestCheckpoint();
        ChaosReport.Recovery recovery =
                report.fault(
                        "kill",
                        "kill -9 of Kafka node %d, leader of partition %d"
                                .formatted(leader, partition));
        kafka.kill(leader);
        int successor = kafka.awaitLeaderOtherThan(topic, partition, leader);
        recovery.running("partition %d led by node %d".formatted(partition, successor));
        return new DeadBroker(leader, partition, checkpointBefore, recovery);
    }

    private void restart(DeadBroker dead) {
        kafka.restart(dead.node());
        kafka.awaitFullyReplicated(topic);
        report.mark("restart", "Kafka node %d back, replicas in sync".formatted(dead.node()));
    }

    private long latestCheckpoint() {
        return cluster.rest().checkpoints(jobId).latestCompletedId();
    }

    private long awaitCheckpointAfter(long checkpoint) {
        return cluster.jobs().awaitCheckpointAfter(jobId, checkpoint).latestCompletedId();
    }
}
