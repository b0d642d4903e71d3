package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.cdc.LedgerRelay;
import io.effonce.cdc.testutils.Relays;
import io.effonce.cluster.FlinkJobs;
import io.effonce.credentials.DatabaseLogin;
import io.effonce.feed.page.HeadlessChromium;
import io.effonce.feed.page.LivePageServer;
import io.effonce.feed.page.PageFigures;
import io.effonce.feed.page.PageSettings;
import io.effonce.it.testutils.ChaosClusterExtension;
import io.effonce.it.testutils.ChaosReport;
import io.effonce.it.testutils.JobJar;
import io.effonce.it.testutils.PageSampler;
import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.TaskManagerKill;
import io.effonce.it.testutils.TotalsInvariant;
import io.effonce.it.testutils.WorkDirs;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SoakRun;
import io.effonce.testing.junit.KafkaExtension;
import io.effonce.testing.junit.KafkaExtension.KafkaBootstrap;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import io.effonce.testing.workload.WorkloadReport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The browser test: the live page in headless Chromium while the job runs on a real
 * multi-process cluster and TaskManagers are killed with {@code kill -9} in the middle of a
 * checkpoint (issued once a checkpoint is in progress; whether it fails that checkpoint or the
 * checkpoint completes first is reported, and {@code JobJarOnLocalClusterITCase} asserts the hits).
 * What a person watching the page sees: the committed figures never decrease (the live ones may,
 * during each recovery), a restore marker for each kill, and at the end, after a checkpoint
 * completed once the workload ended, the committed figures of the top merchants equal the ledger's.
 */
@ExtendWith({PostgresExtension.class, KafkaExtension.class})
class LivePageUnderTaskManagerKillsITCase {

    private static final int TASK_MANAGERS = 2;
    private static final int KILLS = SoakRun.asked() ? 4 : 1;
    private static final int TOP = 10;

    /** Payments committed before each kill, and after the last recovery: changes in flight. */
    private static final long BETWEEN_FAULTS = 2_000;

    private static final Path DIR = WorkDirs.fresh("live-page");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    @RegisterExtension
    static final ChaosClusterExtension CLUSTER = new ChaosClusterExtension(DIR, TASK_MANAGERS);

    @Test
    void thePagesCommittedFiguresNeverDecreaseAcrossKillsAndEndEqualToTheLedger(
            PostgresEndpoint db, KafkaBootstrap kafka) throws Exception {
        Relays relays = new Relays(db, kafka.servers(), "page", DIR);
        try (LedgerRelay relay = relays.start()) {
            FlinkJobs jobs = CLUSTER.cluster().jobs();
            String jobId = jobs.submit(JobJar.submission(db, kafka.servers(), relays.topic(), DIR));
            jobs.awaitAllTasksRunning(jobId);
            ChaosReport report = new ChaosReport("live-page-tm-kill9", db);
            int hits = 0;
            WorkloadReport ledger;
            try (LivePageServer page =
                            LivePageServer.start(PageSettings.of(dashboard(db), 0).withTop(TOP));
                    HeadlessChromium browser = HeadlessChromium.start();
                    PageSampler sampler = PageSampler.start(browser, page.uri());
                    RunningWorkload workload =
                            RunningWorkload.start(Workloads.unbounded("page", 600), db)) {
                sampler.awaitShown("the first committed figures", f -> hasCommitted(f));
                for (int kill = 1; kill <= KILLS; kill++) {
                    workload.awaitMore(BETWEEN_FAULTS);
                    TaskManagerKill k = CLUSTER.chaos().killTaskManagerMidCheckpoint(jobId, report);
                    hits += k.hitCheckpointInFlight() ? 1 : 0;
                    int markers = kill;
                    // the page followed the restore: the sink recorded it, a commit announced it
                    sampler.awaitShown(
                            "a restore marker for kill " + kill,
                            f -> f.restores().size() >= markers);
                    TotalsInvariant.awaitExactAfter(k.recovery(), workload, db);
                }
                workload.awaitMore(BETWEEN_FAULTS);
                ledger = workload.stopAndDrain();
                TotalsInvariant.awaitHolds(db, TotalsInvariant.TIMEOUT);
                jobs.awaitCheckpointAfter(
                        jobId, CLUSTER.cluster().rest().checkpoints(jobId).latestCompletedId());
                TotalsInvariant.awaitCommittedHolds(db, TotalsInvariant.TIMEOUT);

                Oracle oracle = Oracle.of(db);
                PageFigures end =
                        sampler.awaitShown(
                                "the ledger's top "
                                        + TOP
                                        + " of "
                                        + oracle.newestDay()
                                        + " as committed: "
                                        + oracle.top(TOP),
                                f -> oracle.matches(f, TOP));
                sampler.screenshot(SCREENSHOTS.resolve("live-page-after-kills.png"));
                sampler.close();

                report.figure("payments", ledger.started());
                report.figure("kill -9 of TaskManagers", KILLS);
                report.figure("kills that failed the checkpoint in progress", hits);
                report.figure("page samples (browser DOM reads)", sampler.samples());
                report.figure(
                        "merchant-days whose committed figure the page showed", sampler.keysSeen());
                report.figure(
                        "committed figures on the page that decreased",
                        sampler.committedStepsBack().size());
                report.figure("live figures on the page that decreased", sampler.liveStepsBack());
                report.figure("restore markers on the page", end.restores().size());
                report.close();

                assertThat(sampler.committedStepsBack())
                        .as("committed figures the page showed lower than before")
                        .isEmpty();
                assertThat(sampler.samples()).isGreaterThan(10);
                assertThat(end.day()).isEqualTo(oracle.newestDay().toString());
                assertThat(end.rows()).hasSize(Math.min(TOP, oracle.keysOfNewestDay()));
                for (PageFigures.Shown row : end.rows()) {
                    assertThat(row.committed())
                            .as("committed figure of %s on the page vs the ledger", row.key())
                            .isEqualTo(oracle.expected(row.key()));
                }
                assertThat(end.restores()).hasSizeGreaterThanOrEqualTo(KILLS);
            } finally {
                relays.dropSlot();
            }
        }
    }

    private static boolean hasCommitted(PageFigures f) {
        return f.rows().stream().anyMatch(r -> r.committed() != null);
    }

    private static DatabaseLogin dashboard(PostgresEndpoint db) throws Exception {
        String password = "page-" + UUID.randomUUID();
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            // a generated literal: ALTER ROLE takes no bound parameters
            s.execute("ALTER ROLE effonce_dashboard PASSWORD '" + password + "'");
        }
        return new DatabaseLogin(db.jdbcUrl(), "effonce_dashboard", password);
    }

    /**
     * The committed totals the ledger implies (ledger − late events, per merchant-day), keyed as
     * the page keys its rows: {@code merchant|day|currency}.
     */
    private record Oracle(Map<String, Long> expected, LocalDate newestDay) {

        static Oracle of(PostgresEndpoint db) {
            LedgerOracle oracle = new LedgerOracle(db);
            Map<MerchantDay, Total> late = oracle.lateTotals();
            Map<String, Long> expected = new LinkedHashMap<>();
            LocalDate newest = null;
            for (Map.Entry<MerchantDay, Total> e : oracle.ledgerTotals().entrySet()) {
                MerchantDay k = e.getKey();
                long committed =
                        e.getValue().totalMinor() - late.getOrDefault(k, Total.ZERO).totalMinor();
                expected.put(k.merchantId() + "|" + k.day() + "|" + k.currency(), committed);
                newest = newest == null || k.day().isAfter(newest) ? k.day() : newest;
            }
            return new Oracle(expected, newest);
        }

        Long expected(String key) {
            return expected.get(key);
        }

        int keysOfNewestDay() {
            return (int) expected.keySet().stream().filter(this::ofNewestDay).count();
        }

        /** The {@code n} biggest totals of the newest day, biggest first. */
        List<Long> top(int n) {
            return expected.entrySet().stream()
                    .filter(e -> ofNewestDay(e.getKey()))
                    .map(Map.Entry::getValue)
                    .sorted(Comparator.reverseOrder())
                    .limit(n)
                    .toList();
        }

        /**
         * Whether the page shows the newest day's top {@code n}: each row's committed figure equal
         * to the ledger's, and the figures those of the ledger's top (keys may differ only where
         * totals tie).
         */
        boolean matches(PageFigures f, int n) {
            return f.day().equals(newestDay.toString())
                    && f.rows().stream()
                            .allMatch(
                                    r ->
                                            r.committed() != null
                                                    && r.committed().equals(expected(r.key())))
                    && f.rows().stream().map(PageFigures.Shown::committed).toList().equals(top(n));
        }

        private boolean ofNewestDay(String key) {
            return key.contains("|" + newestDay + "|");
        }
    }
}
