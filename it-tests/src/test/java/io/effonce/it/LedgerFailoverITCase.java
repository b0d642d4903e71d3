package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.feed.recount.LedgerRecount;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.StreamingStandby;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's primary is killed ({@code SIGKILL} of the postmaster) while the workload's
 * transactions run, and its streaming standby is promoted. With failover slots (PostgreSQL 17: the
 * relay's slot created with {@code failover = true}, the standby synchronizing it, the primary
 * holding logical decoding back to what the standby has) the relay's next start finds the promoted
 * standby among the hosts of its {@code --db-url}, its slot there, and resumes from its offsets: no
 * snapshot, nothing late, and the totals equal the new primary's ledger. The report gives the time
 * from the kill to the relay streaming again.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class LedgerFailoverITCase {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerFailoverITCase.class);

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.oneTaskManager(2);

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final Path dir = WorkDirs.fresh("ledger-failover");

    @Test
    void withFailoverSlotsTheRelayFollowsThePromotedStandbyAndTheTotalsStayExact(
            PostgresEndpoint sinkDb, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        try (EmbeddedPostgres primary = EmbeddedPostgres.start()) {
            SchemaTool.applyAll(primary.endpoint());
            try (StreamingStandby standby = StreamingStandby.of(primary, true)) {
                run(primary, standby, sinkDb, kafka, cluster, false);
            }
        }
    }

    /**
     * The standby is behind when it is promoted: cut off its primary (as a network that stops
     * carrying its stream would) while the workload goes on, it lacks a thousand payments and more
     * that the primary acknowledged before it died. They are lost with the primary, and nothing
     * counted them: the primary held logical decoding back to what the standby had ({@code
     * synchronized_standby_slots}), so the relay never read them. The totals equal the promoted
     * standby's ledger, with no correction after the fact.
     */
    @Test
    void aPromotedStandbyThatLacksAcknowledgedPaymentsLeavesThemUncounted(
            PostgresEndpoint sinkDb, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        try (EmbeddedPostgres primary = EmbeddedPostgres.start()) {
            SchemaTool.applyAll(primary.endpoint());
            try (StreamingStandby standby = StreamingStandby.of(primary, true)) {
                // A sink database of its own: the class's holds the first test's tables and run.
                PostgresEndpoint sink = LocalServices.newDatabase(sinkDb, "failover_behind");
                SchemaTool.applyAll(sink);
                run(primary, standby, sink, kafka, cluster, true);
            }
        }
    }

    /**
     * Without failover slots the promoted standby has no slot: the relay refuses to resume, names
     * what happened, and creates nothing. The way back it names, on one cluster for the ledger and
     * the sink tables (so the sink fails over too, and the recount reads both): a fresh offset
     * store and an initial snapshot into the running job, then a recount of the days the failover
     * touched once they are final. The final view then equals the promoted standby's ledger,
     * whatever the lost primary had streamed or committed that the standby never received.
     */
    @Test
    void withoutFailoverSlotsTheRelayRefusesAndTheWayBackEndsExact(
            KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster) throws Exception {
        try (EmbeddedPostgres primary = EmbeddedPostgres.start()) {
            SchemaTool.applyAll(primary.endpoint());
            try (StreamingStandby standby = StreamingStandby.of(primary, false)) {
                PostgresEndpoint ledger = standby.withPrimary(primary);
                Relays relays = new Relays(ledger, kafka.servers(), "nofailover", dir);
                LedgerRelay before = relays.start("--slot-failover", "off");
                JobClient job =
                        PipelineJob.over(
                                        ledger,
                                        kafka.servers(),
                                        relays.topic(),
                                        dir.resolve("checkpoints"))
                                .start("no-failover-slots");
                new MiniClusterFaults(cluster, job.getJobID())
                        .awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
                SinkTables tables = new SinkTables(ledger);
                try (RunningWorkload workload =
                        RunningWorkload.start(Workloads.unbounded("nofailover", 1_000), ledger)) {
                    workload.awaitMore(2_000);
                    await("totals rows written by the job")
                            .atMost(TotalsInvariant.TIMEOUT)
                            .until(() -> tables.count("merchant_daily_totals") > 100);
                    workload.awaitMore(1_000);
                    primary.crash();
                    workload.awaitFailure();
                }
                await("the relay to stop on its broken stream")
                        .atMost(TIMEOUT)
                        .until(() -> !before.isRunning());
                before.close();
                standby.promote();
                assertThatThrownBy(() -> relays.start("--slot-failover", "off"))
                        .hasMessageContaining("refusing to resume")
                        .hasMessageContaining("is not in slot 'nofailover'")
                        .hasMessageContaining("--snapshot-mode initial");
                assertThat(
                                tables.number(
                                        "SELECT count(*) FROM pg_replication_slots"
                                                + " WHERE slot_type = 'logical'"))
                        .as("slots the refused relay left on the promoted standby")
                        .isZero();

                Relays wayBack =
                        new Relays(ledger, kafka.servers(), "nofailover", dir.resolve("way-back"));
                try (LedgerRelay relay =
                        wayBack.start("--slot-failover", "off", "--snapshot-mode", "initial")) {
                    Workloads.runAfterFault("nofailover2", 3_000, ledger);
                    LedgerOracle oracle = new LedgerOracle(ledger);
                    AtomicReference<Comparison> last = new AtomicReference<>();
                    await("the final view equal to the promoted standby's ledger after recounts")
                            .atMost(TotalsInvariant.TIMEOUT)
                            .pollInterval(Duration.ofSeconds(1))
                            .until(
                                    () -> {
                                        recountFinalDays(ledger);
                                        last.set(
                                                Comparison.of(
                                                        oracle.ledgerTotals(),
                                                        oracle.finalTotals()));
                                        return last.get().matches();
                                    });
                    assertThat(relay.metrics().snapshotRowsPublished())
                            .as("rows of the ledger's snapshot")
                            .isPositive();
                    LOG.info(
                            "Way back without failover slots: {}; late events {}",
                            last.get().summary(),
                            tables.count("late_events"));
                }
                job.cancel().get();
            }
        }
    }

    /** Recounts every final day, as an operator does for the days a failover touched. */
    private static void recountFinalDays(PostgresEndpoint ledger) throws Exception {
        try (Connection c = ledger.connect()) {
            LedgerRecount recount = new LedgerRecount(c, ZoneOffset.UTC);
            Optional<LocalDate> finalThrough = recount.finalThrough();
            if (finalThrough.isEmpty()) {
                return;
            }
            List<LocalDate> days = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery(
                                    "SELECT day FROM merchant_daily_totals_committed UNION"
                                            + " SELECT (updated_at AT TIME ZONE 'UTC')::date"
                                            + " FROM payments ORDER BY 1")) {
                while (rs.next()) {
                    days.add(rs.getObject(1, LocalDate.class));
                }
            }
            c.commit();
            for (LocalDate day : days) {
                if (!day.isAfter(finalThrough.get())) {
                    recount.recount(day, false);
                }
            }
        }
    }

    private void run(
            EmbeddedPostgres primary,
            StreamingStandby standby,
            PostgresEndpoint sinkDb,
            KafkaBootstrap kafka,
            MiniCluster cluster,
            boolean standbyBehind)
            throws Exception {
        // A slot, topic and workload of its own: the class's Kafka keeps the other cases' topics.
        String name = standbyBehind ? "behind" : "failover";
        PostgresEndpoint ledger = standby.withPrimary(primary);
        Relays relays = new Relays(ledger, kafka.servers(), name, dir);
        LedgerRelay before = relays.start();
        LedgerRelay relay;
        JobClient job =
                PipelineJob.over(
                                sinkDb, kafka.servers(), relays.topic(), dir.resolve("checkpoints"))
                        .start("ledger-failover");
        MiniClusterFaults faults = new MiniClusterFaults(cluster, job.getJobID());
        faults.awaitAllTasksRunning(MiniClusterFaults.TIMEOUT);
        ChaosReport report =
                new ChaosReport(
                        standbyBehind ? "ledger-failover-behind" : "ledger-failover", sinkDb);
        SinkTables sink = new SinkTables(sinkDb);
        long first;
        ChaosReport.Recovery recovery;
        try (RunningWorkload workload =
                RunningWorkload.start(Workloads.unbounded(name, 1_000), ledger)) {
            workload.awaitMore(2_000);
            await("the relay's slot synchronized to the standby")
                    .atMost(TIMEOUT)
                    .until(() -> standby.hasSyncedSlot(name));
            await("totals rows written by the job")
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(() -> sink.count("merchant_daily_totals") > 100);
            if (standbyBehind) {
                standby.detach();
                report.mark("other", "standby cut off its primary");
            }
            workload.awaitMore(1_000);

            recovery = report.fault("kill", "ledger primary killed (SIGKILL) mid-workload");
            long killed = System.nanoTime();
            primary.crash();
            report.mark("other", "workload stopped: " + workload.awaitFailure().getMessage());
            first = workload.started();
            await("the relay to stop on its broken stream")
                    .atMost(TIMEOUT)
                    .until(() -> !before.isRunning());
            report.mark(
                    "other",
                    "relay stopped: " + before.failure().map(Throwable::getMessage).orElse("?"));
            before.close();
            standby.promote();
            relay = relays.start();
            long resumedMillis = (System.nanoTime() - killed) / 1_000_000;
            recovery.running("relay streaming from the promoted standby");
            report.figure("kill -> relay streaming ms", resumedMillis);
        }
        // The workload goes on against the new primary, found by the same multi-host URL.
        WorkloadReport second = Workloads.runAfterFault(name + "2", 3_000, ledger);
        PostgresEndpoint newPrimary = standby.server().endpoint();
        long lost =
                first
                        - new SinkTables(newPrimary)
                                .number(
                                        "SELECT count(*) FROM payments WHERE caller_id LIKE '"
                                                + name
                                                + "-u%'");
        report.figure("acknowledged payments the promoted standby lacks", lost);
        if (standbyBehind) {
            assertThat(lost)
                    .as("payments the primary acknowledged after the standby was cut off")
                    .isGreaterThanOrEqualTo(1_000);
        }
        LedgerOracle ledgerOracle = new LedgerOracle(newPrimary);
        LedgerOracle sinkOracle = new LedgerOracle(sinkDb);
        AtomicReference<Comparison> last = new AtomicReference<>();
        try {
            await("the sink equal to the promoted standby's ledger")
                    .atMost(TotalsInvariant.TIMEOUT)
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> {
                                last.set(
                                        Comparison.of(
                                                ledgerOracle.ledgerTotals(),
                                                sinkOracle.sinkTotals()));
                                return last.get().matches();
                            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    e.getMessage()
                            + "; last comparison (ledger, sink): "
                            + last.get()
                            + "; relay running: "
                            + relay.isRunning()
                            + ", failure: "
                            + relay.failure().map(Throwable::toString).orElse("none")
                            + ", changes published: "
                            + relay.metrics().changesPublished()
                            + "; job: "
                            + job.getJobStatus().get()
                            + "; late events: "
                            + sink.lateEventsSummary()
                            + "; dead letters: "
                            + sink.deadLetters(),
                    e);
        }
        recovery.exact();
        report.figure("payments", first + second.started());
        report.figure("result", last.get().summary());
        report.close();
        assertThat(sink.count("late_events")).as("late changes").isZero();
        assertThat(relay.metrics().snapshotRowsPublished()).as("records of a snapshot").isZero();
        relay.close();
        job.cancel().get();
    }
}
