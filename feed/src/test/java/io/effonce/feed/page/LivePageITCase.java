package io.effonce.feed.page;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.effonce.credentials.DatabaseLogin;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The live page in a real browser (headless Chromium), reading a real PostgreSQL as the read-only
 * role {@code effonce_dashboard}; the test writes the sink's tables as the sink would. Each nested
 * class has its own database.
 */
@ExtendWith(PostgresExtension.class)
class LivePageITCase {

    private static final String PASSWORD = "page-" + UUID.randomUUID();
    private static final LocalDate DAY = LocalDate.parse("2025-03-01");
    private static final Duration TIMEOUT = Duration.ofMinutes(1);
    static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private static HeadlessChromium browser;

    @BeforeAll
    static void startBrowser() {
        browser = HeadlessChromium.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    private static DatabaseLogin dashboard(PostgresEndpoint db) throws SQLException {
        SinkRows.setPassword(db, "effonce_dashboard", PASSWORD);
        return new DatabaseLogin(db.jdbcUrl(), "effonce_dashboard", PASSWORD);
    }

    /** Waits until the page has rendered a snapshot that passes {@code check}; returns it. */
    private static PageFigures awaitPage(
            String what, java.util.function.Predicate<PageFigures> check) {
        PageFigures[] last = {null};
        await("the page to show " + what)
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            last[0] = browser.figures();
                            return check.test(last[0]);
                        });
        return last[0];
    }

    /**
     * Twelve merchants on 1 March (m01 = 1,000 … m12 = 12,000 committed), an older day with a
     * bigger total, and progress as of checkpoint 7 with a restore from checkpoint 5.
     */
    @Nested
    class TwelveMerchants {

        private SinkRows sink;
        private LivePageServer page;

        @BeforeEach
        void seed(PostgresEndpoint db) throws Exception {
            sink = new SinkRows(db);
            for (int i = 1; i <= 12; i++) {
                String m = merchant(i);
                sink.committedWithoutNotice(DAY, m, 1_000L * i, i, 6);
                sink.live(DAY, m, 1_000L * i, i);
            }
            sink.live(DAY, merchant(12), 12_500, 13); // ahead of committed: not yet committed
            sink.live(DAY, merchant(11), 10_000, 10); // behind committed: a recovery's flush
            // the day before holds a bigger total; the page shows the newest day only
            sink.committedWithoutNotice(DAY.minusDays(1), "m99", 99_000, 99, 6);
            sink.commit(
                    7,
                    DAY,
                    null,
                    0,
                    0,
                    new SinkRows.Progress(
                            Instant.parse("2025-03-01T14:05:00Z"),
                            DAY.minusDays(1),
                            5L,
                            Instant.parse("2026-01-01T10:00:00Z")));
        }

        @AfterEach
        void stopPage() {
            if (page != null) {
                page.close();
            }
        }

        @Test
        void showsTheTopTenLiveBesideCommittedWithBadgesAsOfAndRestoreMarkers(PostgresEndpoint db)
                throws Exception {
            page =
                    LivePageServer.start(
                            PageSettings.of(dashboard(db), 0)
                                    .withLiveInterval(Duration.ofMillis(200)));
            awaitListening(page);
            browser.open(page.uri());
            PageFigures shown = awaitPage("its first snapshot", f -> f.events() >= 1);

            assertThat(shown.day()).isEqualTo("2025-03-01");
            assertThat(shown.rows())
                    .extracting(PageFigures.Shown::merchant)
                    .as("the ten biggest committed totals of the newest day, biggest first")
                    .containsExactly(
                            IntStream.rangeClosed(3, 12)
                                    .map(i -> 15 - i)
                                    .mapToObj(LivePageITCase::merchant)
                                    .toArray(String[]::new));
            PageFigures.Shown m12 = shown.row("m12", "EUR").orElseThrow();
            assertThat(m12.committed()).isEqualTo(12_000);
            assertThat(m12.live()).isEqualTo(12_500);
            assertThat(m12.key()).isEqualTo("m12|2025-03-01|EUR");
            PageFigures.Shown m11 = shown.row("m11", "EUR").orElseThrow();
            assertThat(m11.committed()).isEqualTo(11_000);
            assertThat(m11.live()).isEqualTo(10_000);
            assertThat(shown.rows()).allSatisfy(r -> assertThat(r.dayFinal()).isFalse());
            assertThat(shown.rows()).allSatisfy(r -> assertThat(r.badges()).isEqualTo("open"));
            assertThat(shown.asOfCheckpoint()).isEqualTo("7");
            assertThat(shown.asOfText())
                    .contains("as of checkpoint 7")
                    .contains("complete through 2025-03-01 12:05:00 UTC")
                    .contains("final through 2025-02-28");
            assertThat(shown.restores()).containsExactly("5");
            // the committed watermark is of 1 March 2025: far behind, in red; the live totals were
            // just written
            assertThat(shown.committedLag().text()).endsWith(" days");
            assertThat(shown.committedLag().colour()).isEqualTo("lag-warn");
            assertThat(shown.committedLag().seconds()).isGreaterThan(86_400L * 30);
            assertThat(shown.liveLag().colour()).isEqualTo("lag-ok");
            assertThat(shown.liveLag().text()).endsWith(" s ago");
            assertThat(browser.text())
                    .contains("€120.00", "€125.00", "behind committed (recovering)");
            assertThat(shown.error()).isEmpty();
            browser.screenshot(SCREENSHOTS.resolve("live-page-top-ten.png"));

            // the live column is polled: a live write with no notice shows up within the interval
            sink.live(DAY, merchant(10), 10_700, 11);
            awaitPage(
                    "m10's live total 10,700",
                    f -> f.row("m10", "EUR").map(r -> r.live() == 10_700L).orElse(false));

            // a commit of checkpoint 8 that makes 1 March final, after a second restore
            sink.commit(
                    8,
                    DAY,
                    merchant(12),
                    12_500,
                    13,
                    new SinkRows.Progress(
                            Instant.parse("2025-03-02T00:40:00Z"),
                            DAY,
                            6L,
                            Instant.parse("2026-01-01T10:05:00Z")));
            PageFigures after =
                    awaitPage("checkpoint 8 committed", f -> "8".equals(f.asOfCheckpoint()));
            assertThat(after.row("m12", "EUR").orElseThrow().committed()).isEqualTo(12_500);
            assertThat(after.rows()).allSatisfy(r -> assertThat(r.badges()).isEqualTo("final"));
            assertThat(after.restores())
                    .as("restore markers, newest first")
                    .containsExactly("6", "5");
            browser.screenshot(SCREENSHOTS.resolve("live-page-day-final.png"));
        }

        @Test
        void aCommitNoticeBringsTheNewCommittedFigureAndNothingElseDoes(PostgresEndpoint db)
                throws Exception {
            // The live column is read only every 10 minutes here: what changes the page in this
            // test is the commit notice.
            page =
                    LivePageServer.start(
                            PageSettings.of(dashboard(db), 0)
                                    .withLiveInterval(Duration.ofMinutes(10)));
            awaitListening(page);
            browser.open(page.uri());
            PageFigures before =
                    awaitPage(
                            "m12 committed at 12,000",
                            f ->
                                    f.row("m12", "EUR")
                                            .map(r -> r.committed() == 12_000L)
                                            .orElse(false));
            await("the page's event stream open")
                    .atMost(TIMEOUT)
                    .until(() -> page.openStreams() == 1);

            // Counterfactual: a committed value written without a notice is in the database (the
            // page's own read says 15,000) but the browser, which only follows pushes, still
            // shows 12,000: the page does not poll the committed table.
            sink.committedWithoutNotice(DAY, merchant(12), 15_000, 15, 9);
            assertThat(snapshotJson(page))
                    .contains("\"merchant\":\"m12\",\"currency\":\"EUR\",\"committed\":15000");
            PageFigures unchanged = browser.figures();
            assertThat(unchanged.row("m12", "EUR").orElseThrow().committed()).isEqualTo(12_000);
            assertThat(unchanged.events()).isEqualTo(before.events());

            // The commit of checkpoint 9 (another key, and the notice) brings m12's 15,000 too.
            sink.commit(
                    9,
                    DAY,
                    merchant(11),
                    11_200,
                    12,
                    new SinkRows.Progress(
                            Instant.parse("2025-03-01T15:00:00Z"),
                            DAY.minusDays(1),
                            5L,
                            Instant.parse("2026-01-01T10:00:00Z")));
            PageFigures after =
                    awaitPage(
                            "m12 committed at 15,000 after the notice of checkpoint 9",
                            f ->
                                    f.row("m12", "EUR")
                                            .map(r -> r.committed() == 15_000L)
                                            .orElse(false));
            assertThat(after.row("m11", "EUR").orElseThrow().committed()).isEqualTo(11_200);
            assertThat(after.asOfCheckpoint()).isEqualTo("9");
            assertThat(after.commitNotices()).isEqualTo(1);

            // The chart: the five biggest, a point per commit at the hour its watermark reached
            // (14:05 for checkpoint 7, 15:00 for checkpoint 9).
            assertThat(after.chart().keySet())
                    .containsExactly("m12|EUR", "m11|EUR", "m10|EUR", "m09|EUR", "m08|EUR");
            assertThat(after.chart())
                    .containsEntry("m12|EUR", "14.08:12000,15.00:15000")
                    .containsEntry("m11|EUR", "14.08:11000,15.00:11200")
                    .containsEntry("m10|EUR", "14.08:10000,15.00:10000");
            browser.screenshot(SCREENSHOTS.resolve("live-page-chart.png"));
        }
    }

    /** A committed view that keeps up: its watermark ten seconds old. */
    @Nested
    class KeepingUp {

        @Test
        void theLagShowsInGreenBelowTheThresholdTheUrlSets(PostgresEndpoint db) throws Exception {
            SinkRows sink = new SinkRows(db);
            sink.live(DAY, "m1", 3_000, 1);
            sink.commit(
                    2,
                    DAY,
                    "m1",
                    3_000,
                    1,
                    new SinkRows.Progress(
                            Instant.now().minusSeconds(10), DAY.minusDays(1), null, null));
            try (LivePageServer page = LivePageServer.start(PageSettings.of(dashboard(db), 0))) {
                // A generous threshold: the verdict must not depend on how fast the page loads.
                browser.open(page.uri().resolve("/?lag-warning=600"));
                PageFigures shown =
                        awaitPage(
                                "the committed lag",
                                f -> f.events() >= 1 && f.committedLag().seconds() != null);
                assertThat(shown.committedLag().seconds()).isBetween(10L, 600L);
                assertThat(shown.committedLag().colour()).isEqualTo("lag-ok");
                assertThat(shown.committedLag().text()).doesNotContain("ago");
                browser.screenshot(SCREENSHOTS.resolve("live-page-keeping-up.png"));
            }
        }

        /**
         * An idle job: its last live write is ten minutes old, and a commit came after it. Not late
         * (grey, not red); the same write not yet covered by a commit is (red): the "live:
         * last write 117 s ago" in red on an idle, healthy system.
         */
        @Test
        void anOldLastWriteTheNewestCommitCoversIsIdleNotLate(PostgresEndpoint db)
                throws Exception {
            SinkRows sink = new SinkRows(db);
            sink.live(DAY, "m1", 3_000, 1);
            sink.ageLiveWrites(Duration.ofMinutes(10));
            SinkRows.Progress progress =
                    new SinkRows.Progress(
                            Instant.now().minusSeconds(10), DAY.minusDays(1), null, null);
            sink.commit(2, DAY, "m1", 3_000, 1, progress);
            try (LivePageServer page = LivePageServer.start(PageSettings.of(dashboard(db), 0))) {
                browser.open(page.uri().resolve("/?lag-warning=60"));
                PageFigures shown =
                        awaitPage(
                                "the live lag",
                                f -> f.events() >= 1 && f.liveLag().seconds() != null);
                assertThat(shown.liveLag().seconds()).isGreaterThan(500L);
                assertThat(shown.liveLag().colour()).isEqualTo("lag-idle");
            }
            // The counterfactual: the same old write, but the newest commit is older still.
            sink.ageCommits(Duration.ofMinutes(20));
            try (LivePageServer page = LivePageServer.start(PageSettings.of(dashboard(db), 0))) {
                browser.open(page.uri().resolve("/?lag-warning=60"));
                PageFigures late =
                        awaitPage(
                                "the live lag of a write no commit covers",
                                f -> f.events() >= 1 && f.liveLag().seconds() != null);
                assertThat(late.liveLag().colour()).isEqualTo("lag-warn");
            }
        }
    }

    /** Totals, but the sink has not reported progress yet: the view committed_progress is empty. */
    @Nested
    class BeforeTheSinkReportsProgress {

        @Test
        void thePageSaysAsOfNotKnownYet(PostgresEndpoint db) throws Exception {
            SinkRows sink = new SinkRows(db);
            sink.committedWithoutNotice(DAY, "m1", 3_000, 1, 2);
            sink.live(DAY, "m1", 4_500, 2);
            sink.live(DAY, "m2", 700, 1); // no checkpoint has committed m2 yet
            try (LivePageServer page = LivePageServer.start(PageSettings.of(dashboard(db), 0))) {
                browser.open(page.uri());
                PageFigures shown = awaitPage("its first snapshot", f -> f.events() >= 1);
                assertThat(shown.asOfText()).isEqualTo("as of: not known yet");
                assertThat(shown.asOfCheckpoint()).isEmpty();
                assertThat(shown.restores()).isEmpty();
                assertThat(shown.committedLag().text()).isEqualTo("not known yet");
                assertThat(shown.rows()).hasSize(2);
                assertThat(shown.row("m1", "EUR").orElseThrow().live()).isEqualTo(4_500);
                PageFigures.Shown m2 = shown.row("m2", "EUR").orElseThrow();
                assertThat(m2.committed()).as("not committed yet").isNull();
                assertThat(m2.live()).isEqualTo(700);
                browser.screenshot(SCREENSHOTS.resolve("live-page-no-progress.png"));
            }
        }

        @Test
        void aRoleThatMayNotReadTheTotalsIsRefusedAtTheStartNamingTheOption(PostgresEndpoint db)
                throws Exception {
            SinkRows.setPassword(db, "effonce_relay", PASSWORD);
            DatabaseLogin relay = new DatabaseLogin(db.jdbcUrl(), "effonce_relay", PASSWORD);
            SQLException refused =
                    catchThrowableOfType(
                            SQLException.class, () -> LivePageCommand.checkAccess(relay));
            assertThat((Object) refused).as("the relay role's start check refused").isNotNull();
            assertThat(LivePageCommand.explain(refused, relay))
                    .contains("--user effonce_relay may not read the totals")
                    .contains("42501")
                    .doesNotContain(PASSWORD);

            assertThatDashboardMayStart(db);
        }

        private void assertThatDashboardMayStart(PostgresEndpoint db) throws SQLException {
            LivePageCommand.checkAccess(dashboard(db));
        }
    }

    /**
     * A day only the batch recount counted (every change of it came late): the totals tables lack
     * it, the final view holds it. A merchant id that would end a script element shows as text.
     */
    @Nested
    class RecountOnlyDay {

        private static final String HOSTILE = "m</script><b>x";

        @Test
        void theFinalViewsKeysShowWithTheirBadgeAndTheFirstResponseHoldsTheFigures(
                PostgresEndpoint db) throws Exception {
            SinkRows sink = new SinkRows(db);
            sink.recountedOnly(DAY, "r1", 4_200, 3);
            sink.recountedOnly(DAY, HOSTILE, 100, 1);
            sink.commit(
                    3,
                    DAY,
                    null,
                    0,
                    0,
                    new SinkRows.Progress(Instant.parse("2025-03-03T00:00:00Z"), DAY, null, null));
            try (LivePageServer page = LivePageServer.start(PageSettings.of(dashboard(db), 0))) {
                // The first response holds the figures: no event stream needed to show them.
                String html = html(page);
                assertThat(html)
                        .contains("\"merchant\":\"r1\"")
                        .contains("m\\u003c/script>\\u003cb>x")
                        .doesNotContain(HOSTILE);

                browser.open(page.uri());
                PageFigures shown =
                        awaitPage("the recount-only day", f -> f.row("r1", "EUR").isPresent());
                assertThat(shown.day()).isEqualTo(DAY.toString());
                PageFigures.Shown r1 = shown.row("r1", "EUR").orElseThrow();
                assertThat(r1.committed()).as("the stream never committed it").isNull();
                assertThat(r1.live()).isNull();
                assertThat(r1.dayFinal()).isTrue();
                assertThat(r1.badges()).contains("final").contains("recount").contains("42.00");
                assertThat(shown.row(HOSTILE, "EUR")).as("shown as text").isPresent();
                browser.screenshot(SCREENSHOTS.resolve("live-page-recount-only-day.png"));
            }
        }
    }

    private static void awaitListening(LivePageServer page) {
        await("the page to LISTEN on effonce_committed").atMost(TIMEOUT).until(page::listening);
    }

    static String merchant(int i) {
        return String.format("m%02d", i);
    }

    private static String html(LivePageServer page) throws IOException, InterruptedException {
        HttpResponse<String> response =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(page.uri()).build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    private static String snapshotJson(LivePageServer page)
            throws IOException, InterruptedException {
        HttpResponse<String> response =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(page.uri().resolve("snapshot.json")).build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
