package io.effonce.it.soak;

import io.effonce.cluster.LocalFlinkCluster;
import io.effonce.it.testutils.ClusterChaos;
import io.effonce.it.testutils.TakeoverHolds;
import io.effonce.testing.LedgerPair;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.faults.PostgresLinkCut;
import io.effonce.testing.kafka.KafkaBrokers;

/**
 * The soak's processes, and the way its faults reach them.
 *
 * @param cluster the Flink cluster (two JobManagers, three TaskManagers)
 * @param chaos kills, pauses and cuts of its processes
 * @param kafka the three brokers
 * @param ledger the ledger's primary and standby
 * @param relay the relay's process
 * @param relaySlot the relay's replication slot
 * @param topic the change topic
 * @param partitions its partitions
 * @param sinkDb the sink's database, reached directly (to copy it and put it back)
 * @param sinkLink the forwarder through which the job's TaskManagers reach it (to cut them off)
 * @param holds the sink's takeovers, held at the nemesis' word
 */
record SoakDeployment(
        LocalFlinkCluster cluster,
        ClusterChaos chaos,
        KafkaBrokers kafka,
        LedgerPair ledger,
        RelayProcess relay,
        String relaySlot,
        String topic,
        int partitions,
        PostgresEndpoint sinkDb,
        PostgresLinkCut sinkLink,
        TakeoverHolds holds) {}
