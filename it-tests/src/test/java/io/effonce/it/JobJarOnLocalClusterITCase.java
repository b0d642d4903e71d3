package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.cluster.CheckpointStats;
import io.effonce.cluster.FlinkJobs;
import io.effonce.cluster.FlinkProcess;
import io.effonce.cluster.FlinkRestClient;
import io.effonce.cluster.FlinkRestException;
import io.effonce.cluster.JobSubmission;
import io.effonce.cluster.LocalPrometheus;
import io.effonce.cluster.PrometheusPages;
import io.effonce.cluster.cli.ClusterCli;
import io.effonce.it.testutils.ChaosClusterExtension;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.DashboardQueries;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.MetricTable;
import io.effonce.it.testutils.OldChangeCopy;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.SavepointAcknowledgementGate;
import io.effonce.it.testutils.SinkTables;
import io.effonce.it.testutils.StepBackSampler;
import io.effonce.it.testutils.TaskManagerKill;
import io.effonce.it.testutils.TaskManagerPause;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SoakRun;
import io.effonce.testing.faults.PostgresLinkCut;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.kafka.KafkaTopics;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.workload.EventClock;
import io.effonce.testing.workload.WorkloadReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The shaded job jar, as users submit it, on a real multi-process standalone cluster (one
 * JobManager and two TaskManagers, each its own JVM) over the relay's topic and PostgreSQL. Each
 * nested class has its own database and relay.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class JobJarOnLocalClusterITCase {

    private static final int TASK_MANAGERS = 2;
    private static final Path DIR = WorkDirs.fresh("local-cluster");

    @RegisterExtension
    static final ChaosClusterExtension CLUSTER =
            new ChaosClusterExtension(DIR, TASK_MANAGERS).withPrometheusPortsOfItsOwn();

    private static JobSubmission job(PostgresEndpoint db, KafkaBootstrap kafka, Relays relays) {
        return JobJar.submission(db, kafka.servers(), relays.topic(), DIR);
    }

    @Nested
    class EndToEnd {

        @Test
        void theJobJarOnTheClusterWritesTotalsEqualToTheLedger(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "jar", DIR);
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                String jobId = jobs.submit(job(db, kafka, relays));
                jobs.awaitAllTasksRunning(jobId);
                WorkloadReport ledger =
                        Workloads.runAsync(Workloads.options("jar", 10_000, 0), db).get();
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                assertThat(ledger.started()).isEqualTo(10_000);
                assertThat(comparison.keys()).isGreaterThan(100);
                assertThat(CLUSTER.cluster().rest().checkpoints(jobId).restored()).isZero();
            } finally {
                relays.dropSlot();
            }
        }
    }

    /** Payments committed before each fault (and after the last recovery): changes in flight. */
    private static final long BETWEEN_FAULTS = 2_000;

    /** Kills beyond the planned ones while none has yet failed the checkpoint it hit. */
    private static final int EXTRA_KILLS = 4;

    /**
     * The soak's TaskManager kills (in its overlap with a broker kill), {@link WatchedByPrometheus}
     * and {@code LivePageUnderTaskManagerKillsITCase} kill TaskManagers mid-checkpoint on the same
     * kind of cluster in every {@code mvn verify}, with the committed view watched; this one, its
     * twelve kills in a row, runs with the soak flag.
     */
    @Nested
    @Tag("long")
    class TaskManagersKilled {

        @Test
        void totalsAreExactAfterTaskManagersAreKilledMidCheckpoint(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            int kills = 12;
            double rate = 1_200;
            Relays relays = new Relays(db, kafka.servers(), "kill9", DIR);
            SinkTables tables = new SinkTables(db);
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                String jobId = jobs.submit(job(db, kafka, relays));
                jobs.awaitAllTasksRunning(jobId);
                long takeoversAtStart = tables.ownershipTakeovers();
                ChaosReport report = new ChaosReport("tm-kill9-cluster", db);
                // The workload runs until it is stopped below: it is writing when each kill lands
                // and while the job restores, whatever the machine's speed.
                WorkloadReport ledger;
                int hits = 0;
                int done = 0;
                // A dashboard reading both tables all along: the committed one must never step
                // back.
                try (StepBackSampler reader = new StepBackSampler(db);
                        RunningWorkload workload =
                                RunningWorkload.start(Workloads.unbounded("kill9", rate), db)) {
                    // A kill lands while a checkpoint is in flight, but the checkpoint may still
                    // complete first (its acknowledgements were already sent): the kills go on,
                    // a few at most, until one failed the checkpoint it hit.
                    while (done < kills || (hits == 0 && done < kills + EXTRA_KILLS)) {
                        workload.awaitMore(BETWEEN_FAULTS);
                        TaskManagerKill k =
                                CLUSTER.chaos().killTaskManagerMidCheckpoint(jobId, report);
                        done++;
                        hits += k.hitCheckpointInFlight() ? 1 : 0;
                        TotalsInvariant.awaitExactAfter(k.recovery(), workload, db);
                    }
                    workload.awaitMore(BETWEEN_FAULTS);
                    ledger = workload.stopAndDrain();
                    TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                    jobs.awaitCheckpointAfter(
                            jobId, CLUSTER.cluster().rest().checkpoints(jobId).latestCompletedId());
                    TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                    report.figure(
                            "committed-table reads across the kills (each reads every key)",
                            reader.committedSamples());
                    report.figure("committed keys that stepped back", reader.committedStepsBack());
                    report.figure(
                            "live keys that stepped back (reads: " + reader.liveSamples() + ")",
                            reader.liveStepsBack());
                    assertThat(reader.committedStepsBack())
                            .as("committed totals never step back")
                            .isZero();
                    assertThat(reader.committedSamples()).isPositive();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);

                long restores = CLUSTER.cluster().rest().checkpoints(jobId).restored();
                long flushes = tables.ownershipTakeovers() - takeoversAtStart;
                report.figure("payments", ledger.started());
                report.figure("kill -9 of TaskManagers", done);
                report.figure("kills that failed the checkpoint in progress", hits);
                report.figure("restores", restores);
                report.figure(
                        "failed checkpoints", CLUSTER.cluster().rest().checkpoints(jobId).failed());
                report.figure("sink subtask flushes (takeovers)", flushes);
                report.figure("late events", tables.count("late_events"));
                report.figure("result", comparison.summary());
                report.close();

                assertThat(hits).as("kills that hit a checkpoint in flight").isPositive();
                assertThat(restores).isGreaterThanOrEqualTo(done);
                assertThat(flushes).isGreaterThanOrEqualTo(2L * done);
                theAlertRulesMetricsAreServed(jobId, done);
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * Every metric deploy/prometheus/effonce-alerts.yml reads is served by the cluster's Prometheus
     * reporters under the name the rule uses, the restarts counted ({@code deadLetters_<reason>}
     * appears with the first dead letter of its reason, none here).
     */
    private static void theAlertRulesMetricsAreServed(String jobId, int kills)
            throws InterruptedException {
        List<String> pages = PrometheusPages.scrape(CLUSTER.prometheusPorts());
        String all = String.join("\n", pages);
        assertThat(all)
                .contains(
                        "flink_jobmanager_job_numberOfFailedCheckpoints{",
                        "flink_taskmanager_job_task_operator_lastCommittedCheckpoint{",
                        "flink_taskmanager_job_task_operator_fencedWrites{",
                        "flink_taskmanager_job_task_operator_lastFlushKeysSet{")
                .containsPattern("flink_taskmanager_job_task_operator_\\w*eventTimeAheadBursts\\{");
        OptionalDouble restarts =
                PrometheusPages.sample(
                        pages, "flink_jobmanager_job_numRestarts", "job_id=\"" + jobId + "\"");
        assertThat(restarts).as("the job's restarts, as Prometheus reads them").isPresent();
        assertThat(restarts.getAsDouble()).isGreaterThanOrEqualTo(kills);
    }

    /**
     * Debian's Prometheus scrapes the cluster and the relay and evaluates deploy/prometheus's alert
     * rules (the committed-view-behind threshold lowered to 10 s, its {@code for} to 2 s, so that a
     * test can wait for it: a current view lags about 6 s, the watermark's 5 s out-of-orderness
     * plus a heartbeat and a checkpoint). A TaskManager killed mid-checkpoint shows as a restart
     * and a restore flush; the relay stopped makes the committed view fall behind in event time
     * until the alert fires (and the relay's scrape fails), and the relay back makes it clear.
     */
    @Nested
    class WatchedByPrometheus {

        private static final String BEHIND_RULE =
                "flink_taskmanager_job_task_operator_committedWatermarkLagSeconds) > 60\n"
                        + "        for: 2m";

        @Test
        void prometheusSeesTheRestoreAndTheCommittedViewFallBehindWhileTheRelayIsStopped(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            assertThat(LocalPrometheus.installed())
                    .as("Debian's prometheus (apt-get install prometheus; .ci/run installs it)")
                    .isTrue();
            Relays relays = new Relays(db, kafka.servers(), "prom", DIR);
            int relayPort;
            try (ServerSocket probe = new ServerSocket(0)) {
                relayPort = probe.getLocalPort();
            }
            String[] relayArgs = {
                "--heartbeat-interval", "1s", "--metrics-port", String.valueOf(relayPort)
            };
            Path dir = DIR.resolve("prometheus");
            Files.createDirectories(dir);
            String rules =
                    Files.readString(Path.of("..", "deploy", "prometheus", "effonce-alerts.yml"));
            assertThat(rules).contains(BEHIND_RULE);
            Path testRules = dir.resolve("effonce-alerts.yml");
            Files.writeString(
                    testRules,
                    rules.replace(
                            BEHIND_RULE, BEHIND_RULE.replace("> 60", "> 10").replace("2m", "2s")));
            LedgerRelay relay = relays.start(relayArgs);
            try (LocalPrometheus prometheus =
                            LocalPrometheus.start(
                                    dir,
                                    CLUSTER.prometheusPorts(),
                                    List.of("127.0.0.1:" + relayPort),
                                    List.of(testRules));
                    RunningWorkload workload =
                            RunningWorkload.start(
                                    Workloads.unbounded("prom", 200)
                                            .clock(EventClock.accelerated(Instant.now(), 1.0)),
                                    db)) {
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                String jobId = jobs.submit(job(db, kafka, relays));
                jobs.awaitAllTasksRunning(jobId);
                String ofJob = "{job_id=\"" + jobId + "\"}";
                await("Prometheus reads the job's commits")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(
                                () ->
                                        prometheus
                                                        .max(
                                                                "flink_taskmanager_job_task_operator_lastCommittedCheckpoint"
                                                                        + ofJob)
                                                        .orElse(-1)
                                                > 0);
                whileTheCommittedViewIsCurrent(prometheus, "before the kill");

                ChaosReport report = new ChaosReport("prometheus-cluster", db);
                // A kill whose checkpoint completed first restores that checkpoint, and the
                // erased run may have written nothing after its barrier: a flush with nothing to
                // set. One that failed the checkpoint restores the one before, a second of writes
                // back: the kills go on, a few at most, until one did.
                TaskManagerKill kill = null;
                for (int kills = 0;
                        kills <= EXTRA_KILLS && (kill == null || !kill.hitCheckpointInFlight());
                        kills++) {
                    workload.awaitMore(BETWEEN_FAULTS / 10);
                    kill = CLUSTER.chaos().killTaskManagerMidCheckpoint(jobId, report);
                    TotalsInvariant.awaitExactAfter(kill.recovery(), workload, db);
                }
                assertThat(kill.hitCheckpointInFlight())
                        .as("a kill failed the checkpoint in flight, in %d tries", EXTRA_KILLS + 1)
                        .isTrue();
                theAlertRulesMetricsAreServed(jobId, 1);
                await("Prometheus reads the restart")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(
                                () ->
                                        prometheus
                                                        .max(
                                                                "flink_jobmanager_job_numRestarts"
                                                                        + ofJob)
                                                        .orElse(0)
                                                >= 1);
                await("Prometheus reads a restore flush that set or deleted keys")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(
                                () ->
                                        prometheus
                                                        .max(
                                                                "sum(flink_taskmanager_job_task_operator_lastFlushKeysSet"
                                                                        + ofJob
                                                                        + ") + sum(flink_taskmanager_job_task_operator_lastFlushKeysDeleted"
                                                                        + ofJob
                                                                        + ")")
                                                        .orElse(0)
                                                > 0);
                whileTheCommittedViewIsCurrent(prometheus, "after the restore");

                relay.close();
                await("EffonceCommittedViewBehind firing while the relay is stopped")
                        .atMost(TotalsInvariant.TIMEOUT)
                        .until(
                                () ->
                                        prometheus
                                                .alerts("firing")
                                                .contains("EffonceCommittedViewBehind"));
                List<String> relayDown = new ArrayList<>(prometheus.alerts("pending"));
                relayDown.addAll(prometheus.alerts("firing"));
                assertThat(relayDown).as("the relay's scrape fails").contains("EffonceRelayDown");

                relay = relays.start(relayArgs);
                whileTheCommittedViewIsCurrent(prometheus, "with the relay back");
                report.figure(
                        "committed view's event-time lag once current again, s",
                        prometheus
                                .max(
                                        "flink_taskmanager_job_task_operator_committedWatermarkLagSeconds"
                                                + ofJob)
                                .orElse(-1));
                theDocumentedMetricsAndTheDashboardsQueriesAnswer(prometheus, db);
                report.figure(
                        "restarts, as Prometheus reads them",
                        (long)
                                prometheus
                                        .max("flink_jobmanager_job_numRestarts" + ofJob)
                                        .orElse(0));
                report.close();
                workload.stopAndDrain();
                TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
            } finally {
                relay.close();
                relays.dropSlot();
            }
        }

        /**
         * Every metric deploy/prometheus/README.md's table names, and every PromQL expression of
         * deploy/grafana's dashboard, has a series in this Prometheus; every SQL query of the
         * dashboard returns a row as the dashboard's role.
         */
        private void theDocumentedMetricsAndTheDashboardsQueriesAnswer(
                LocalPrometheus prometheus, PostgresEndpoint db) throws Exception {
            List<String> documented = MetricTable.names();
            assertThat(documented).hasSizeGreaterThanOrEqualTo(15);
            for (String metric : documented) {
                await("a series of " + metric + ", as deploy/prometheus/README.md documents it")
                        .atMost(Duration.ofMinutes(1))
                        .until(() -> !prometheus.query(metric).isEmpty());
            }
            DashboardQueries dashboard = DashboardQueries.read();
            assertThat(dashboard.promQl()).hasSizeGreaterThanOrEqualTo(10);
            for (String expr : dashboard.promQl()) {
                await("a series for the dashboard's " + expr)
                        .atMost(Duration.ofMinutes(1))
                        .until(() -> !prometheus.query(expr).isEmpty());
            }
            String password = "dashboard-" + UUID.randomUUID();
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute("ALTER ROLE effonce_dashboard PASSWORD '" + password + "'");
            }
            PostgresEndpoint dashboardRole = db.as("effonce_dashboard", password);
            assertThat(dashboard.sql()).hasSize(2);
            for (String sql : dashboard.sql()) {
                try (Connection c = dashboardRole.connect();
                        Statement s = c.createStatement();
                        ResultSet rows = s.executeQuery(sql)) {
                    assertThat(rows.next()).as("a row for %s", sql).isTrue();
                }
            }
        }

        /** Awaits the behind alert neither pending nor firing (the lag back under 15 s). */
        private void whileTheCommittedViewIsCurrent(LocalPrometheus prometheus, String when) {
            await("EffonceCommittedViewBehind neither pending nor firing " + when)
                    .atMost(TotalsInvariant.TIMEOUT)
                    .until(
                            () ->
                                    !prometheus
                                                    .alerts("firing")
                                                    .contains("EffonceCommittedViewBehind")
                                            && !prometheus
                                                    .alerts("pending")
                                                    .contains("EffonceCommittedViewBehind"));
        }
    }

    /**
     * A TaskManager frozen with SIGSTOP while a checkpoint is in flight, long enough for the
     * JobManager to declare it lost and for the job to restore elsewhere and complete two
     * checkpoints; then woken with SIGCONT. Its sink attempt is stale: whatever it tries (a write,
     * a takeover) must be fenced or refused, never land. The totals stay exact and the committed
     * table never steps back.
     *
     * <p>The soak's {@code TASK_MANAGER_PAUSE} does the same in every {@code mvn verify} (the same
     * pause, sampler and checks, on the same kind of cluster), so this one runs with the soak flag.
     */
    @Nested
    @Tag("long")
    class TaskManagersPaused {

        @Test
        void totalsAreExactAfterTaskManagersArePausedMidCheckpointAndWokenLater(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            int pauses = SoakRun.asked() ? 6 : 1;
            Relays relays = new Relays(db, kafka.servers(), "pause", DIR);
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                String jobId = jobs.submit(job(db, kafka, relays));
                jobs.awaitAllTasksRunning(jobId);
                ChaosReport report = new ChaosReport("tm-sigstop-cluster", db);
                int fencedOrRefused = 0;
                try (StepBackSampler reader = new StepBackSampler(db);
                        RunningWorkload workload =
                                RunningWorkload.start(Workloads.unbounded("pause", 800), db)) {
                    for (int pause = 1; pause <= pauses; pause++) {
                        workload.awaitMore(BETWEEN_FAULTS);
                        TaskManagerPause p =
                                CLUSTER.chaos().pauseTaskManagerMidCheckpoint(jobId, report);
                        String woken = CLUSTER.chaos().retireWokenTaskManager(p);
                        fencedOrRefused +=
                                woken.contains("FencedException")
                                                || woken.contains("Refusing a stale attempt")
                                        ? 1
                                        : 0;
                        TotalsInvariant.awaitExactAfter(p.recovery(), workload, db);
                    }
                    workload.awaitMore(BETWEEN_FAULTS);
                    workload.stopAndDrain();
                    TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                    jobs.awaitCheckpointAfter(
                            jobId, CLUSTER.cluster().rest().checkpoints(jobId).latestCompletedId());
                    TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                    report.figure("SIGSTOP of TaskManagers, woken after two checkpoints", pauses);
                    report.figure(
                            "woken TaskManagers whose sink was fenced or refused in the log",
                            fencedOrRefused);
                    report.figure("committed keys that stepped back", reader.committedStepsBack());
                    assertThat(reader.committedStepsBack())
                            .as("committed totals never step back")
                            .isZero();
                    assertThat(reader.committedSamples()).isPositive();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                report.figure("restores", CLUSTER.cluster().rest().checkpoints(jobId).restored());
                report.figure("result", comparison.summary());
                report.close();
                assertThat(CLUSTER.cluster().rest().checkpoints(jobId).restored())
                        .isGreaterThanOrEqualTo(pauses);
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * A stop-with-savepoint that fails after its savepoint completed, as when a TaskManager is lost
     * during the stop: one sink subtask acknowledged the savepoint, the other is held in its
     * acknowledgement (by the database, {@link SavepointAcknowledgementGate}) when its TaskManager
     * is killed. Flink 2.3 then fails the job for good ({@code StopWithSavepointStoppingException}
     * is a non-recoverable error) and names the savepoint to restart from; submitted again from it,
     * the job runs on from where half of the sink had acknowledged it and the other half had not,
     * with the totals exact and nothing committed stepping back.
     */
    @Nested
    class StopWithSavepointFailsAfterItsSavepoint {

        @Test
        void theJobSubmittedFromTheSavepointFlinkNamesEndsExact(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "stopfail", DIR);
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                FlinkRestClient rest = CLUSTER.cluster().rest();
                String jobId = jobs.submit(job(db, kafka, relays));
                jobs.awaitAllTasksRunning(jobId);
                ChaosReport report = new ChaosReport("stop-with-savepoint-failed-cluster", db);
                try (StepBackSampler reader = new StepBackSampler(db);
                        RunningWorkload workload =
                                RunningWorkload.start(Workloads.unbounded("stopfail", 800), db)) {
                    workload.awaitMore(BETWEEN_FAULTS);
                    long checkpointed =
                            jobs.awaitCheckpointAfter(
                                            jobId, rest.checkpoints(jobId).latestCompletedId())
                                    .latestCompletedId();
                    ChaosReport.Recovery recovery;
                    String trigger;
                    long savepoint;
                    SavepointAcknowledgementGate gate =
                            SavepointAcknowledgementGate.atSecondOfTwoSinkSubtasks(db);
                    try (gate) {
                        trigger =
                                rest.triggerStop(
                                        jobId,
                                        CLUSTER.cluster().savepointDir().toUri().toString(),
                                        false);
                        gate.awaitHeldBack(TotalsInvariant.TIMEOUT);
                        await("the first sink subtask's acknowledgement of the savepoint")
                                .atMost(TotalsInvariant.TIMEOUT)
                                .until(() -> gate.acknowledgedBeforeTheHeld() > 0);
                        savepoint = gate.acknowledgedBeforeTheHeld();
                        FlinkProcess victim =
                                CLUSTER.cluster()
                                        .taskManager(lastUnfinishedTaskManager(rest, jobId));
                        recovery =
                                report.fault(
                                        "kill",
                                        "kill -9 of %s during a stop whose savepoint completed"
                                                .formatted(victim.name()));
                        CLUSTER.cluster().killTaskManager(victim.index());
                    }
                    CLUSTER.cluster().startTaskManager();
                    String stop = stopFailure(rest, jobId, trigger);
                    jobs.awaitState(jobId, "FAILED");
                    Matcher named =
                            Pattern.compile("savepoint has been created at: (\\S+),").matcher(stop);
                    assertThat(named.find())
                            .as("the failure names the savepoint: " + stop)
                            .isTrue();
                    assertThat(savepoint).isGreaterThan(checkpointed);
                    assertThat(gate.acknowledgedByTheHeld())
                            .as("the held sink subtask never acknowledged the savepoint")
                            .isLessThan(savepoint);
                    report.figure("the stop", "failed, the job FAILED, " + named.group(1));
                    report.figure("savepoint acknowledged by one sink subtask of two", savepoint);

                    jobId = jobs.submit(job(db, kafka, relays).fromSavepoint(named.group(1)));
                    jobs.awaitAllTasksRunning(jobId);
                    CheckpointStats restored = rest.checkpoints(jobId);
                    assertThat(restored.latestRestoredId()).isEqualTo(savepoint);
                    recovery.running("submitted again from savepoint " + savepoint);
                    recovery.checkpointed(
                            jobs.awaitCheckpointAfter(jobId, restored.latestRestoredId())
                                    .latestCompletedId());
                    TotalsInvariant.awaitExactAfter(recovery, workload, db);
                    workload.awaitMore(BETWEEN_FAULTS);
                    workload.stopAndDrain();
                    TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                    jobs.awaitCheckpointAfter(jobId, rest.checkpoints(jobId).latestCompletedId());
                    TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                    report.figure("committed keys that stepped back", reader.committedStepsBack());
                    assertThat(reader.committedStepsBack())
                            .as("committed totals never step back")
                            .isZero();
                    assertThat(reader.committedSamples()).isPositive();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                report.figure("result", comparison.summary());
                report.close();
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * The mistakes a person makes on their own services, each submitted with {@code flink-local
     * submit} as README's deploy path does: the submit command prints one line that names the fix,
     * and exits 1. Found in main before anything runs; with the check switched off, the first
     * task's failure is what {@code --wait} prints.
     */
    @Nested
    class MistakesAtSubmission {

        private static final String TOPIC = "mistakes.public.payments";

        @Test
        void eachMistakeIsOneLineInTheSubmitCommandsOutput(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            KafkaTopics.create(kafka.servers(), TOPIC, 1);
            PostgresEndpoint sink = db.withPasswordFor("effonce_sink", "the-right-one");
            PostgresEndpoint bare = LocalServices.newDatabase(db, "effonce_bare");

            assertThat(
                            submitFails(
                                    JobJar.submission(
                                            sink.as("effonce_sink", "a-wrong-one"),
                                            kafka.servers(),
                                            TOPIC,
                                            DIR)))
                    .contains("refused the login of effonce_sink")
                    .contains("password authentication failed");
            assertThat(submitFails(JobJar.submission(bare, kafka.servers(), TOPIC, DIR)))
                    .contains("The sink's tables merchant_daily_totals")
                    .contains("apply deploy/sql/sink.sql and deploy/sql/roles.sql");
            assertThat(submitFails(JobJar.submission(sink, kafka.servers(), "no-such-topic", DIR)))
                    .contains("The topic no-such-topic does not exist")
                    .contains("start the relay first");
            // A wrong Kafka address: refused in main, no job to restart forever.
            var jobsBefore = CLUSTER.cluster().rest().jobs().keySet();
            assertThat(submitFails(JobJar.submission(sink, "127.0.0.1:1", TOPIC, DIR)))
                    .contains("Kafka at 127.0.0.1:1 did not answer")
                    .contains("check --kafka.bootstrap-servers");
            assertThat(CLUSTER.cluster().rest().jobs().keySet())
                    .as("no job left behind")
                    .isEqualTo(jobsBefore);
            assertThat(
                            submitFails(
                                    without(
                                            JobJar.submission(sink, kafka.servers(), TOPIC, DIR),
                                            "--postgres.url")))
                    .contains("--postgres.url is required");

            // Not checked in main: the first task's failure ends --wait, in one line. (The
            // sink's tables missing, the deployment is not numbered; their absence fails it.)
            String[] failed = {null};
            JobSubmission checked = JobJar.submission(bare, kafka.servers(), TOPIC, DIR);
            List<String> noCheck = new ArrayList<>(checked.args());
            noCheck.addAll(List.of("--startup-check", "false"));
            JobSubmission unchecked = checked.withArgs(noCheck);
            assertThat(submit(unchecked, true, line -> failed[0] = line)).isEqualTo(1);
            assertThat(failed[0])
                    .contains("failed while starting")
                    .containsIgnoringCase("apply deploy/sql/sink.sql");
            String jobId = failed[0].substring("Job ".length(), failed[0].indexOf(' ', 4));
            // The sink's start found a misconfiguration: the job fails once, no restart loop.
            CLUSTER.cluster().jobs().awaitState(jobId, "FAILED");
            assertThat(CLUSTER.cluster().rest().checkpoints(jobId).restored()).isZero();

            // A failure the job would restart into forever (the sink's database unreachable):
            // --wait reports it and cancels the job, in the same line.
            PostgresEndpoint nowhere =
                    new PostgresEndpoint(
                            "jdbc:postgresql://127.0.0.1:1/ledger", "effonce_sink", "unused");
            JobSubmission unreachable = JobJar.submission(nowhere, kafka.servers(), TOPIC, DIR);
            List<String> unreachableArgs = new ArrayList<>(unreachable.args());
            unreachableArgs.addAll(List.of("--startup-check", "false"));
            // Where the graph is built, the sink numbers the deployment: refused in main, with
            // the cause and the way to run unordered.
            assertThat(submitFails(unreachable.withArgs(unreachableArgs)))
                    .contains("Could not number this deployment of merchant_daily_totals")
                    .contains("127.0.0.1:1")
                    .contains("set sink.require-deployment-number to false");
            // As from a client that cannot see the database: no checks, no deployment number.
            unreachableArgs.addAll(List.of("--sink.require-deployment-number", "false"));
            String[] restarting = {null};
            assertThat(submit(unreachable.withArgs(unreachableArgs), true, l -> restarting[0] = l))
                    .isEqualTo(1);
            assertThat(restarting[0])
                    .contains("failed while starting")
                    .contains("restarting into the same failure: it is cancelled");
            String restartingId =
                    restarting[0].substring("Job ".length(), restarting[0].indexOf(' ', 4));
            assertThat(CLUSTER.cluster().rest().jobState(restartingId)).isEqualTo("CANCELED");
        }

        /** Submits {@code job}; asserts it failed with exactly one line; returns that line. */
        private String submitFails(JobSubmission job) {
            List<String> lines = new ArrayList<>();
            assertThat(submit(job, false, lines::add))
                    .as("the submit command's exit code")
                    .isEqualTo(1);
            assertThat(lines).as("what the submit command printed").hasSize(1);
            assertThat(lines.get(0)).startsWith("The job was not submitted: ");
            return lines.get(0);
        }

        /**
         * Runs {@code flink-local submit} in this JVM; each line it prints on stderr to {@code
         * err}.
         */
        private int submit(JobSubmission job, boolean waitRunning, Consumer<String> err) {
            List<String> args = new ArrayList<>();
            args.addAll(
                    List.of(
                            "--work-dir",
                            CLUSTER.cluster().workDir().toString(),
                            "submit",
                            "--class",
                            job.entryClass()));
            if (waitRunning) {
                args.add("--wait");
            }
            args.add(job.jar().toString());
            args.add("--");
            args.addAll(job.args());
            StringWriter text = new StringWriter();
            CommandLine cli = new CommandLine(new ClusterCli());
            cli.setErr(new PrintWriter(text, true));
            cli.setOut(new PrintWriter(new StringWriter(), true));
            int code = cli.execute(args.toArray(String[]::new));
            text.toString().lines().filter(l -> !l.isBlank()).forEach(err);
            return code;
        }

        private JobSubmission without(JobSubmission job, String option) {
            List<String> args = new ArrayList<>(job.args());
            int at = args.indexOf(option);
            args.remove(at + 1);
            args.remove(at);
            return job.withArgs(args);
        }
    }

    /** The lines of the cluster's process logs that contain {@code text}. */
    static List<String> clusterLogLines(String text) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> logs = Files.list(CLUSTER.cluster().logDir())) {
            for (Path log : logs.filter(p -> p.toString().endsWith(".log")).toList()) {
                try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
                    lines.filter(line -> line.contains(text)).forEach(found::add);
                }
            }
        }
        return found;
    }

    /**
     * The TaskManager of the one task still running when every other task of a stopping job
     * finished: during a stop held at a sink subtask, the one whose loss fails the stop.
     */
    static String lastUnfinishedTaskManager(FlinkRestClient rest, String jobId) {
        List<String> unfinished = new ArrayList<>();
        await("every task but one of job " + jobId + " finished")
                .atMost(TotalsInvariant.TIMEOUT)
                .until(
                        () -> {
                            unfinished.clear();
                            unfinished.addAll(rest.taskManagersOfUnfinishedTasks(jobId));
                            return unfinished.size() == 1;
                        });
        return unfinished.get(0);
    }

    /** The failure of a stop-with-savepoint, once the stop failed. */
    static String stopFailure(FlinkRestClient rest, String jobId, String trigger) {
        String[] failure = {null};
        await("stop-with-savepoint " + trigger + " of job " + jobId + " to fail")
                .atMost(TotalsInvariant.TIMEOUT)
                .until(
                        () -> {
                            try {
                                assertThat(rest.savepointLocation(jobId, trigger))
                                        .as("the stop finished although a task was lost")
                                        .isNull();
                            } catch (FlinkRestException e) {
                                failure[0] = e.getMessage();
                            }
                            return failure[0] != null;
                        });
        return failure[0];
    }

    /**
     * The job's TaskManagers cut from PostgreSQL between a sink's fence check and its COMMIT, then
     * killed: PostgreSQL still holds their transactions (and the fence rows) open, as after a
     * network partition. The new attempts' takeovers wait only until the server ends those
     * transactions (the sink's sessions: idle in transaction at most 20 s), then flush, and the
     * totals are exact again.
     */
    /**
     * The soak's {@code SINK_CUT} does the same in every {@code mvn verify} (the same cut, sampler
     * and checks, on the same kind of cluster), so this one runs with the soak flag.
     */
    @Nested
    @Tag("long")
    class CutFromPostgres {

        @Test
        void totalsAreExactAfterTheJobIsCutFromPostgresMidTransaction(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "cut", DIR);
            URI server = URI.create(db.jdbcUrl().substring("jdbc:".length()));
            try (LedgerRelay relay = relays.start();
                    PostgresLinkCut link = PostgresLinkCut.to(server.getHost(), server.getPort())) {
                PostgresEndpoint throughLink =
                        new PostgresEndpoint(link.jdbcUrl(db.jdbcUrl()), db.user(), db.password());
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                String jobId = jobs.submit(job(throughLink, kafka, relays));
                jobs.awaitAllTasksRunning(jobId);
                ChaosReport report = new ChaosReport("pg-link-cut-cluster", db);
                try (StepBackSampler reader = new StepBackSampler(db);
                        RunningWorkload workload =
                                RunningWorkload.start(Workloads.unbounded("cut", 800), db)) {
                    workload.awaitMore(BETWEEN_FAULTS);
                    ChaosReport.Recovery recovery =
                            CLUSTER.chaos().cutFromPostgresMidTransaction(jobId, link, report);
                    TotalsInvariant.awaitExactAfter(recovery, workload, db);
                    workload.awaitMore(BETWEEN_FAULTS);
                    workload.stopAndDrain();
                    TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                    jobs.awaitCheckpointAfter(
                            jobId, CLUSTER.cluster().rest().checkpoints(jobId).latestCompletedId());
                    TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);
                    report.figure("connections cut mid-transaction", link.frozenLinks());
                    report.figure("committed keys that stepped back", reader.committedStepsBack());
                    assertThat(reader.committedStepsBack())
                            .as("committed totals never step back")
                            .isZero();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                report.figure("result", comparison.summary());
                report.close();
                assertThat(link.frozenLinks()).isPositive();
            } finally {
                relays.dropSlot();
            }
        }
    }

    @Nested
    class Rescaled {

        @Test
        void totalsAreExactAfterRescalingTwoToThreeToOneThroughSavepoints(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "rescale", DIR);
            SinkTables tables = new SinkTables(db);
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                String jobId = jobs.submit(job(db, kafka, relays));
                List<String> runs = new ArrayList<>(List.of(jobId));
                jobs.awaitAllTasksRunning(jobId);
                ChaosReport report = new ChaosReport("rescale-cluster", db);
                try (RunningWorkload workload =
                        RunningWorkload.start(Workloads.unbounded("rescale", 800), db)) {
                    for (int parallelism : new int[] {3, 1}) {
                        workload.awaitMore(BETWEEN_FAULTS);
                        jobs.awaitCheckpointAfter(
                                jobId,
                                CLUSTER.cluster().rest().checkpoints(jobId).latestCompletedId());
                        ChaosReport.Recovery recovery =
                                report.fault(
                                        "rescale",
                                        "stop with savepoint, resubmit with p=" + parallelism);
                        jobId = jobs.rescale(jobId, parallelism);
                        runs.add(jobId);
                        jobs.awaitAllTasksRunning(jobId);
                        CheckpointStats restored = CLUSTER.cluster().rest().checkpoints(jobId);
                        assertThat(restored.latestRestoredIsSavepoint()).isTrue();
                        recovery.running("running from the savepoint with p=" + parallelism);
                        recovery.checkpointed(
                                jobs.awaitCheckpointAfter(jobId, restored.latestRestoredId())
                                        .latestCompletedId());
                        TotalsInvariant.awaitExactAfter(recovery, workload, db);
                    }
                    workload.awaitMore(BETWEEN_FAULTS);
                    workload.stopAndDrain();
                }
                Comparison comparison = TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                // 2 fresh subtasks, then 3 and 1 restored ones, each flushing its new range
                report.figure("sink subtask takeovers", tables.ownershipTakeovers());
                report.figure("result", comparison.summary());
                report.close();
                // A TaskManager this busy machine let miss its 5 s heartbeat restarts the job, and
                // each restarted sink subtask takes its range again: those takeovers are Flink's.
                List<String> failures = new ArrayList<>();
                for (String run : runs) {
                    failures.addAll(CLUSTER.cluster().rest().failures(run));
                }
                if (failures.isEmpty()) {
                    assertThat(tables.ownershipTakeovers()).isEqualTo(2 + 3 + 1);
                } else {
                    assertThat(failures)
                            .as("the only failures: TaskManagers lost to the cluster")
                            .allMatch(f -> f.contains("TaskManager with id"));
                    assertThat(tables.ownershipTakeovers()).isGreaterThan(2 + 3 + 1);
                }
                // Each resubmission runs in a new user-code class loader on the same processes,
                // and each of its connections finds the job's own JDBC driver at once.
                assertThat(clusterLogLines("No suitable driver")).isEmpty();
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * A stop-with-savepoint with drain sends the end-of-input watermark. Restored from that
     * savepoint, the job counts new changes of the day that was open at the drain (its total goes
     * on, not from zero), and a copy of an old change is still rejected as late.
     */
    @Nested
    class DrainedSavepoint {

        @Test
        void afterADrainedSavepointNewChangesCountAndAnOldCopyIsStillLate(
                PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
            Relays relays = new Relays(db, kafka.servers(), "drain", DIR);
            try (LedgerRelay relay = relays.start()) {
                FlinkJobs jobs = CLUSTER.cluster().jobs();
                JobSubmission submission = job(db, kafka, relays);
                String jobId = jobs.submit(submission);
                jobs.awaitAllTasksRunning(jobId);
                // 3,000 payments 5 s apart from 06:00: the first part ends near 10:10 on 1 March.
                WorkloadReport first =
                        Workloads.runAsync(Workloads.options("drain", 3_000, 0), db).get();
                TotalsInvariant.awaitHoldsWithNothingLate(db, TotalsInvariant.TIMEOUT);
                jobs.awaitCheckpointAfter(
                        jobId, CLUSTER.cluster().rest().checkpoints(jobId).latestCompletedId());

                String savepoint = jobs.stopWithSavepoint(jobId, true);
                jobId = jobs.submit(submission.fromSavepoint(savepoint));
                jobs.awaitAllTasksRunning(jobId);
                assertThat(CLUSTER.cluster().rest().checkpoints(jobId).latestRestoredIsSavepoint())
                        .isTrue();

                OldChangeCopy copy =
                        OldChangeCopy.oldestSucceeded(db, kafka.servers(), relays.topic());
                copy.republish(kafka.servers(), relays.topic());
                moreOfTheSameDayThenExactWithOneLateCopy(db, "drain2", first, copy);
            } finally {
                relays.dropSlot();
            }
        }
    }

    /**
     * After a restore: 2,000 more payments of the same day (from five minutes after the first
     * workload's last), then the sink alone equals the ledger and {@code late} is the one late
     * event.
     */
    private static void moreOfTheSameDayThenExactWithOneLateCopy(
            PostgresEndpoint db, String scope, WorkloadReport first, OldChangeCopy late)
            throws Exception {
        Workloads.runAsync(
                        Workloads.options(
                                scope, 2_000, 0, first.lastEventTime().plus(Duration.ofMinutes(5))),
                        db)
                .get();
        TotalsInvariant.awaitSinkAloneHolds(db, TotalsInvariant.TIMEOUT);
        SinkTables tables = new SinkTables(db);
        await("the old copy " + late.eventId() + " in late_events")
                .atMost(TotalsInvariant.TIMEOUT)
                .until(() -> tables.lateEventIds().contains(late.eventId()));
        assertThat(tables.lateEventIds()).containsExactly(late.eventId());
        TotalsInvariant.assertSinkAloneHolds(db);
    }
}
