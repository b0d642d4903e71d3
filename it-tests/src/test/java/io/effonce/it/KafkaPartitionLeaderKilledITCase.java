package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.RelayStartupException;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaBrokers;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka as production runs it: three brokers as processes, the change topic replicated three ways
 * with {@code min.insync.replicas} 2. The leader of a partition is killed with SIGKILL while the
 * workload writes, the relay publishes into that partition and the job reads it, then started again
 * on its data; then the leader of the other partition. The relay rides both out without a restart,
 * nothing committed to the ledger is lost, nothing is counted twice. And a topic under which Kafka
 * could lose an acknowledged change stops the relay before it reads a change.
 */
@ExtendWith(PostgresExtension.class)
class KafkaPartitionLeaderKilledITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private static KafkaBrokers kafka;

    private final Path dir = WorkDirs.fresh("kafka-leader-killed");

    @BeforeAll
    static void startBrokers() {
        kafka = KafkaBrokers.start(3);
    }

    @AfterAll
    static void stopBrokers() {
        kafka.close();
    }

    /**
     * The soak's {@code BROKER_KILL} does the same in every {@code mvn verify} (a partition's
     * leader killed while the relay publishes and the job reads, progress awaited with the node
     * still dead, the relay the same process after it, totals exact), so this one runs with the
     * soak flag.
     */
    @Test
    @Tag("long")
    void totalsAreExactWhenEachPartitionsLeaderIsKilledMidRun(
            PostgresEndpoint db, @InjectMiniCluster MiniCluster cluster) throws Exception {
        Relays relays = new Relays(db, kafka.bootstrapServers(), "leaderkill", dir);
        SinkTables tables = new SinkTables(db);
        // Kafka's own default, which many clusters keep: the relay raises it on the topic it
        // creates, so acks=all waits for a follower.
        setClusterDefault(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1");
        LedgerRelay relay;
        try {
            relay = relays.start("--replication-factor", "3");
        } finally {
            setClusterDefault(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
        }
        try {
            assertThat(topicConfig(relays.topic(), TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG))
                    .isEqualTo("2");
            JobClient job =
                    PipelineJob.over(
                                    db,
                                    kafka.bootstrapServers(),
                                    relays.topic(),
                                    dir.resolve("checkpoints"))
                            .start("kafka-leader-killed");
            MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
            // The job commits the offsets of each checkpoint to its group, named after the topic.
            String group = relays.topic();
            faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
            ChaosReport report = new ChaosReport("kafka-leader-killed", db);
            WorkloadReport first;
            List<ChaosReport.Recovery> recoveries = new ArrayList<>();
            try (RunningWorkload workload =
                    RunningWorkload.start(Workloads.unbounded("leaderkill", 1_000), db)) {
                workload.awaitMore(2_000);
                await("totals rows written by the job")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(() -> tables.count("merchant_daily_totals") > 200);
                for (int p = 0; p < 2; p++) {
                    int partition = p;
                    int leader = kafka.leaderOf(relays.topic(), partition);
                    long checkpointBefore = faults.latestCompletedId();
                    ChaosReport.Recovery recovery =
                            report.fault(
                                    "kill",
                                    "Kafka node "
                                            + leader
                                            + ", leader of partition "
                                            + partition
                                            + ", SIGKILL");
                    recoveries.add(recovery);
                    long endAtKill = kafka.endOffset(relays.topic(), partition);
                    kafka.kill(leader);
                    int successor = kafka.awaitLeaderOtherThan(relays.topic(), partition, leader);
                    report.mark("other", "partition " + partition + " led by node " + successor);
                    // With the node still dead: the relay publishes into the partition through its
                    // new leader, and the job reads past where the partition ended at the kill
                    // (the offsets it commits to its group on each checkpoint say how far).
                    await("the relay publishing into partition " + partition + " again")
                            .atMost(TotalsInvariant.TIMEOUT)
                            .until(
                                    () ->
                                            kafka.endOffset(relays.topic(), partition)
                                                    > endAtKill + 500);
                    await("the job reading partition " + partition + " past offset " + endAtKill)
                            .atMost(TotalsInvariant.TIMEOUT)
                            .until(
                                    () ->
                                            kafka.committedOffset(group, relays.topic(), partition)
                                                    > endAtKill);
                    faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
                    recovery.running("job running, restored " + faults.restores() + " times");
                    recovery.checkpointed(faults.awaitCheckpointAfter(checkpointBefore));
                    kafka.restart(leader);
                    kafka.awaitFullyReplicated(relays.topic());
                    report.mark("other", "Kafka node " + leader + " back, replicas in sync");
                    workload.awaitMore(1_000);
                }
                first = workload.stopAndDrain();
            }
            assertThat(relay.isRunning())
                    .as("the relay rode out both kills (%s)", relay.failure())
                    .isTrue();
            WorkloadReport second = Workloads.runAfterFault("leaderkill2", 5_000, db);

            Comparison comparison =
                    TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);
            recoveries.forEach(ChaosReport.Recovery::exact);
            report.figure("payments", first.started() + second.started());
            report.figure("restores", faults.restores());
            report.figure("relay", relay.metrics());
            report.figure("result", comparison.summary());
            report.close();
            assertThat(tables.count("payments")).isEqualTo(first.started() + second.started());
            job.cancel().get();
        } finally {
            relay.close();
            relays.dropSlot();
        }
    }

    /**
     * Kafka's own default, which many clusters keep, is {@code min.insync.replicas} 1: the relay
     * raises it on the topic it creates, so that {@code acks=all} waits for a follower.
     */
    @Test
    void aTopicTheRelayCreatesWaitsForAFollower(PostgresEndpoint db) throws Exception {
        Relays relays = new Relays(db, kafka.bootstrapServers(), "raised", dir);
        setClusterDefault(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1");
        try (LedgerRelay relay = relays.start("--replication-factor", "3")) {
            // The broker asked may serve the topic's settings a moment after the controller took
            // the relay's change.
            await("min.insync.replicas 2 on the topic the relay created")
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(
                            () ->
                                    topicConfig(
                                            relays.topic(),
                                            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG),
                            "2"::equals);
        } finally {
            setClusterDefault(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
            relays.dropSlot();
        }
    }

    @Test
    void aTopicThatCouldLoseAcknowledgedChangesStopsTheRelayNamingTheSettingAndTheFix(
            PostgresEndpoint db) throws Exception {
        Relays relays = new Relays(db, kafka.bootstrapServers(), "weaktopic", dir);
        try (Admin admin = admin()) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(relays.topic(), 2, (short) 3)
                                            .configs(
                                                    Map.of(
                                                            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                                                            "1"))))
                    .all()
                    .get();
            try {
                assertThatThrownBy(relays::start)
                        .isInstanceOf(RelayStartupException.class)
                        .hasMessageContaining("min.insync.replicas=1 with 3 replicas")
                        .hasMessageContaining(
                                "--entity-name "
                                        + relays.topic()
                                        + " --add-config"
                                        + " min.insync.replicas=2");

                setTopicConfig(admin, relays.topic(), TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
                setTopicConfig(
                        admin,
                        relays.topic(),
                        TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG,
                        "true");
                assertThatThrownBy(relays::start)
                        .isInstanceOf(RelayStartupException.class)
                        .hasMessageContaining("unclean.leader.election.enable=true")
                        .hasMessageNotContaining("min.insync.replicas");
            } finally {
                relays.dropSlot();
            }
        }
    }

    private static Admin admin() {
        return Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    }

    private static String topicConfig(String topic, String name) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = admin()) {
            return admin.describeConfigs(List.of(resource))
                    .all()
                    .get()
                    .get(resource)
                    .get(name)
                    .value();
        }
    }

    /**
     * Sets a cluster-wide default and waits until every broker serves it: the controller
     * acknowledges the change before the brokers' metadata has it, and a relay that asked a broker
     * in between would read the old default (it did, once, in CI: it kept a topic at 1 that it
     * should have raised).
     */
    private static void setClusterDefault(String name, String value) throws Exception {
        try (Admin admin = admin()) {
            set(admin, new ConfigResource(ConfigResource.Type.BROKER, ""), name, value);
            List<ConfigResource> brokers =
                    admin.describeCluster().nodes().get().stream()
                            .map(n -> new ConfigResource(ConfigResource.Type.BROKER, n.idString()))
                            .toList();
            await("every broker serving %s=%s".formatted(name, value))
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(
                            () ->
                                    admin.describeConfigs(brokers).all().get().values().stream()
                                            .allMatch(c -> value.equals(c.get(name).value())));
        }
    }

    private static void setTopicConfig(Admin admin, String topic, String name, String value)
            throws Exception {
        set(admin, new ConfigResource(ConfigResource.Type.TOPIC, topic), name, value);
    }

    private static void set(Admin admin, ConfigResource resource, String name, String value)
            throws Exception {
        admin.incrementalAlterConfigs(
                        Map.of(
                                resource,
                                List.of(
                                        new AlterConfigOp(
                                                new ConfigEntry(name, value),
                                                AlterConfigOp.OpType.SET))))
                .all()
                .get();
    }
}
