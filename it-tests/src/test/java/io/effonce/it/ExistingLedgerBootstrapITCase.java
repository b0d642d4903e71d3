package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.MiniClusterFaults;
import io.effonce.it.testutils.PipelineJob;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.TaskManagerKill;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.job.JobOptions;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import io.effonce.testing.SoakRun;
import io.effonce.testing.flink.MiniClusters;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.LedgerWorkload;
import io.effonce.testing.workload.WorkloadOptions;
import io.effonce.testing.workload.WorkloadReport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * effonce started on a ledger that already holds {@value #DEFAULT_HISTORY} payments (5 s of event
 * time apart: 5.8 days; {@value #SOAK_HISTORY}, 11.6 days, in the soak run): the relay's initial
 * snapshot sends the history in primary-key order, then streams. Each nested class has a database
 * of its own, its ledger a copy of the history written once for the class.
 *
 * <p>{@code -Deffonce.bootstrap.payments=N} sets the history's size (for measuring, e.g.
 * 1,000,000).
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class ExistingLedgerBootstrapITCase {

    private static final Logger LOG = LoggerFactory.getLogger(ExistingLedgerBootstrapITCase.class);

    private static final long DEFAULT_HISTORY = 100_000;
    private static final long SOAK_HISTORY = 200_000;
    private static final long HISTORY =
            Long.getLong(
                    "effonce.bootstrap.payments", SoakRun.asked() ? SOAK_HISTORY : DEFAULT_HISTORY);

    /**
     * Event-time days the sink must hold at least: every whole day of history, and the live one.
     */
    private static final int DAYS = (int) Duration.ofSeconds(5 * HISTORY).toDays() + 1;

    /** The live workload's event time starts a day after the history's (5 s a payment). */
    private static final Instant LIVE_START =
            Workloads.START.plusSeconds(5 * HISTORY).plus(Duration.ofDays(1));

    private static final double LIVE_RATE = 500;

    /**
     * A partition silent this long goes idle (the default is 30 s): short, so that partitions go
     * idle often while the history is read, and an idle partition must not let event time move.
     */
    private static final Duration SHORT_IDLENESS = Duration.ofMillis(300);

    /** Payments the live workload commits after the bootstrap, so event time moves past it. */
    private static final long AFTER_BOOTSTRAP = 1_000;

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.taskManagers(2);

    /** The history, written once into a database of its own; each test's ledger gets a copy. */
    private static PostgresEndpoint historySource;

    private static WorkloadReport historyReport;

    /**
     * The history, before any relay exists: {@code HISTORY} payments, all final, copied into {@code
     * db}'s empty ledger (PostgreSQL's COPY, rows as they are) from the one written for the class.
     */
    private static synchronized WorkloadReport writeHistory(PostgresEndpoint db) {
        if (historySource == null) {
            PostgresEndpoint source = LocalServices.newDatabase(db, "history");
            SchemaTool.applyAll(source);
            long started = System.nanoTime();
            historyReport =
                    new LedgerWorkload(Workloads.options("history", HISTORY, 0).build())
                            .run(source);
            LOG.info(
                    "History: {} payments written in {} s",
                    historyReport.started(),
                    (System.nanoTime() - started) / 1_000_000_000);
            historySource = source;
        }
        copyPayments(historySource, db);
        return historyReport;
    }

    private static void copyPayments(PostgresEndpoint from, PostgresEndpoint to) {
        try (Connection source = from.connect();
                Connection target = to.connect()) {
            ByteArrayOutputStream rows = new ByteArrayOutputStream();
            source.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyOut("COPY payments TO STDOUT (FORMAT binary)", rows);
            target.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn(
                            "COPY payments FROM STDIN (FORMAT binary)",
                            new ByteArrayInputStream(rows.toByteArray()));
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("Copying the history to " + to + " failed", e);
        }
    }

    /** Payments until the test stops them, event times after the history's. */
    private static WorkloadOptions.Builder live() {
        return Workloads.unbounded("live", LIVE_RATE)
                .clock(EventClock.simulated(LIVE_START, Duration.ofSeconds(5)));
    }

    private static void awaitSnapshotEnded(LedgerRelay relay) {
        await("the relay's snapshot of the existing ledger to end")
                .atMost(TotalsInvariant.TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> relay.metrics().snapshotEnded() || !relay.isRunning());
        assertThat(relay.failure()).as("relay failure").isEmpty();
    }

    private static long distinctDays(PostgresEndpoint db) {
        return new SinkTables(db).number("SELECT count(DISTINCT day) FROM merchant_daily_totals");
    }

    @Nested
    class WhileTheLedgerKeepsChanging {

        private final Path dir = WorkDirs.fresh("bootstrap-live");

        @Test
        void theSinkAloneEqualsTheLedgerAndNoHistoryIsLate(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            WorkloadReport history = writeHistory(db);
            Relays relays = new Relays(db, kafka.servers(), "boot_live", dir);
            try (RunningWorkload workload = RunningWorkload.start(live(), db)) {
                workload.awaitMore(200);
                long relayStartedAt = System.nanoTime();
                long atSnapshotStart = workload.started();
                try (LedgerRelay relay = relays.start("--snapshot-mode", "initial")) {
                    JobClient job =
                            pipeline(db, kafka, relays, dir)
                                    .set(JobOptions.IDLENESS, SHORT_IDLENESS)
                                    .start("bootstrap-live");
                    awaitSnapshotEnded(relay);
                    long snapshotSeconds = (System.nanoTime() - relayStartedAt) / 1_000_000_000;
                    long atSnapshotEnd = workload.started();
                    workload.awaitMore(AFTER_BOOTSTRAP);
                    WorkloadReport ledger = workload.stopAndDrain();

                    Comparison sinkAlone =
                            TotalsInvariant.awaitSinkAloneHolds(db, TotalsInvariant.TIMEOUT);
                    long exactSeconds = (System.nanoTime() - relayStartedAt) / 1_000_000_000;
                    LOG.info(
                            "Bootstrap of {} history payments (+{} live): snapshot of {} rows"
                                    + " published in {} s; sink alone equal to the ledger after {}"
                                    + " s: {}",
                            history.started(),
                            ledger.started(),
                            relay.metrics().snapshotRowsPublished(),
                            snapshotSeconds,
                            exactSeconds,
                            sinkAlone.summary());

                    assertThat(atSnapshotEnd)
                            .as("live payments committed while the snapshot ran")
                            .isGreaterThan(atSnapshotStart);
                    assertThat(relay.metrics().snapshotRowsPublished())
                            .as("snapshot rows: every history payment")
                            .isGreaterThanOrEqualTo(history.started());
                    assertThat(new SinkTables(db).count("late_events")).as("late events").isZero();
                    assertThat(distinctDays(db))
                            .as("days in the sink")
                            .isGreaterThanOrEqualTo(DAYS);
                    assertThat(sinkAlone.keys()).as("merchant-days").isGreaterThan(250 * DAYS);
                    job.cancel().get();
                }
            } finally {
                relays.dropSlot();
            }
        }
    }

    @Nested
    class TaskManagerKilledDuringTheBootstrap {

        private final Path dir = WorkDirs.fresh("bootstrap-tm-killed");

        /**
         * The live workload starts, then is held at a commit while the relay starts (its snapshot
         * holds the payments in flight, whose next states stream after it) and the task manager
         * dies: with no streamed record and no heartbeat, event time cannot move, so the kill lands
         * inside the bootstrap by construction, whatever the machine's speed.
         */
        @Test
        void aKillMidCheckpointDuringTheBootstrapIsSurvived(
                PostgresEndpoint db, KafkaBootstrap kafka, @InjectMiniCluster MiniCluster cluster)
                throws Exception {
            WorkloadReport history = writeHistory(db);
            Relays relays = new Relays(db, kafka.servers(), "boot_kill", dir);
            AtomicReference<LedgerRelay> relay = new AtomicReference<>();
            AtomicReference<JobClient> job = new AtomicReference<>();
            AtomicReference<MiniClusterFaults> faults = new AtomicReference<>();
            AtomicReference<TaskManagerKill> kill = new AtomicReference<>();
            try (RunningWorkload workload = RunningWorkload.start(live(), db);
                    ChaosReport report = new ChaosReport("bootstrap-tm-killed", db)) {
                workload.awaitMore(200);
                workload.whilePaused(
                        () -> {
                            relay.set(relays.start("--snapshot-mode", "initial"));
                            job.set(startJob(db, kafka, relays));
                            faults.set(new MiniClusterFaults(cluster, job.get().getJobID()));
                            long counted = history.started() / 8;
                            await("the sink to hold %d counted payments".formatted(counted))
                                    .atMost(TotalsInvariant.TIMEOUT)
                                    .pollInterval(Duration.ofMillis(20))
                                    .until(() -> paymentsInSink(db) >= counted);
                            kill.set(terminateMidCheckpoint(faults.get(), report));
                        });
                awaitSnapshotEnded(relay.get());
                workload.awaitMore(AFTER_BOOTSTRAP);
                WorkloadReport ledger = workload.stopAndDrain();
                Comparison sinkAlone =
                        TotalsInvariant.awaitSinkAloneHolds(db, TotalsInvariant.TIMEOUT);
                kill.get().recovery().exact();
                report.figure("history payments", history.started());
                report.figure("live payments", ledger.started());
                report.figure("restores", faults.get().restores());
                report.figure(
                        "kill hit the checkpoint in flight", kill.get().hitCheckpointInFlight());
                report.figure("late events", new SinkTables(db).count("late_events"));
                report.figure("result", sinkAlone.summary());
                report.close();

                assertThat(faults.get().restores()).as("restores").isPositive();
                assertThat(new SinkTables(db).count("late_events")).as("late events").isZero();
                assertThat(distinctDays(db)).as("days in the sink").isGreaterThanOrEqualTo(DAYS);
                job.get().cancel().get();
            } finally {
                if (relay.get() != null) {
                    relay.get().close();
                }
                relays.dropSlot();
            }
        }

        private JobClient startJob(PostgresEndpoint db, KafkaBootstrap kafka, Relays relays) {
            try {
                return pipeline(db, kafka, relays, dir)
                        .checkpointInterval(Duration.ofMillis(300))
                        .set(JobOptions.IDLENESS, SHORT_IDLENESS)
                        .start("bootstrap-tm-killed");
            } catch (Exception e) {
                throw new IllegalStateException("The job did not start", e);
            }
        }

        private static TaskManagerKill terminateMidCheckpoint(
                MiniClusterFaults faults, ChaosReport report) {
            try {
                return faults.terminateTaskManagerMidCheckpoint(report);
            } catch (Exception e) {
                throw new IllegalStateException("The task manager kill failed", e);
            }
        }

        private static long paymentsInSink(PostgresEndpoint db) {
            return new SinkTables(db)
                    .number("SELECT coalesce(sum(payments), 0) FROM merchant_daily_totals");
        }
    }

    /**
     * The counterfactual: the same bootstrap with snapshot rows moving event time, as every
     * streamed change does. The invariant still holds (what is missing went to late_events), but
     * the sink alone is wrong: the test can see the flaw the hold fixes.
     */
    @Nested
    class WithoutTheHold {

        private final Path dir = WorkDirs.fresh("bootstrap-no-hold");

        @Test
        void historyIsJudgedLateAndTheSinkAloneIsWrong(PostgresEndpoint db, KafkaBootstrap kafka)
                throws Exception {
            writeHistory(db);
            Relays relays = new Relays(db, kafka.servers(), "boot_nohold", dir);
            try (LedgerRelay relay = relays.start("--snapshot-mode", "initial")) {
                awaitSnapshotEnded(relay);
                JobClient job =
                        pipeline(db, kafka, relays, dir)
                                .set(JobOptions.HOLD_DURING_SNAPSHOT, false)
                                .start("bootstrap-no-hold");
                try (RunningWorkload workload = RunningWorkload.start(live(), db)) {
                    workload.awaitMore(AFTER_BOOTSTRAP);
                    workload.stopAndDrain();
                }
                Comparison sinkAndLate = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                Comparison sinkAlone = new LedgerOracle(db).compareWithSink();
                long late = new SinkTables(db).count("late_events");
                LOG.info(
                        "Without the hold: {} merchant-days, sink alone wrong for {}, {} late"
                                + " events from history",
                        sinkAndLate.keys(),
                        sinkAlone.differences().size(),
                        late);
                assertThat(late).as("history judged late").isGreaterThan(1_000);
                assertThat(sinkAlone.differences())
                        .as("merchant-days the sink alone gets wrong")
                        .hasSizeGreaterThan(100);
                job.cancel().get();
            } finally {
                relays.dropSlot();
            }
        }
    }

    /** The job over the relay's topic, its checkpoints in {@code dir}. */
    private static PipelineJob pipeline(
            PostgresEndpoint db, KafkaBootstrap kafka, Relays relays, Path dir) {
        return PipelineJob.over(db, kafka.servers(), relays.topic(), dir.resolve("checkpoints"));
    }
}
