package io.effonce.feed.page;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class PageSnapshotTest {

    private static final Instant READ = Instant.parse("2026-01-01T10:00:00Z");

    @Test
    void beforeTheSinkReportsProgressAsOfIsNull() {
        PageSnapshot s =
                new PageSnapshot(
                        LocalDate.parse("2025-03-01"),
                        List.of(
                                new PageSnapshot.Row(
                                        "m1",
                                        "EUR",
                                        12_000L,
                                        3L,
                                        7L,
                                        15_000L,
                                        4L,
                                        false,
                                        "committed",
                                        12_000L)),
                        null,
                        null,
                        List.of(),
                        READ,
                        "commit",
                        2,
                        null);
        assertThat(s.toJson())
                .isEqualTo(
                        "{\"day\":\"2025-03-01\",\"readAt\":\"2026-01-01T10:00:00Z\","
                                + "\"trigger\":\"commit\",\"commitNotices\":2,\"error\":null,"
                                + "\"asOf\":null,\"liveWrittenAt\":null,\"restores\":[],\"rows\":[{\"merchant\":\"m1\","
                                + "\"currency\":\"EUR\",\"committed\":12000,"
                                + "\"committedPayments\":3,\"checkpoint\":7,\"live\":15000,"
                                + "\"livePayments\":4,\"final\":false,\"source\":\"committed\","
                                + "\"finalTotal\":12000}]}");
    }

    @Test
    void textIsEscapedSoAMerchantIdCannotBreakTheJsonOrThePage() {
        PageSnapshot s =
                new PageSnapshot(
                        null,
                        List.of(
                                new PageSnapshot.Row(
                                        "m\"1\\</script>\n\u2028",
                                        "EUR",
                                        null,
                                        null,
                                        null,
                                        5L,
                                        1L,
                                        false,
                                        null,
                                        null)),
                        new PageSnapshot.AsOf(7L, null, null, READ, READ, 5L, 128, null, null),
                        READ,
                        List.of(new PageSnapshot.Restore(READ, 5L, READ)),
                        READ,
                        "interval",
                        0,
                        "cannot read the totals: \"x\"");
        String json = s.toJson();
        assertThat(json)
                .contains("\"merchant\":\"m\\\"1\\\\\\u003c/script>\\n\\u2028\"")
                .contains("\"committed\":null")
                .contains("\"error\":\"cannot read the totals: \\\"x\\\"\"")
                .contains(
                        "\"asOf\":{\"checkpoint\":7,\"completeThrough\":null,"
                                + "\"finalThrough\":null,\"committedAt\":\"2026-01-01T10:00:00Z\"")
                .contains("\"restores\":[{\"at\":\"2026-01-01T10:00:00Z\",\"checkpoint\":5,")
                .doesNotContain("\n");
    }

    @Test
    void onlyFiguresCountAsAChangeNotTheTimeOfReading() {
        PageSnapshot a =
                new PageSnapshot(null, List.of(), null, null, List.of(), READ, "interval", 0, null);
        PageSnapshot b =
                new PageSnapshot(
                        null,
                        List.of(),
                        null,
                        null,
                        List.of(),
                        READ.plusSeconds(1),
                        "commit",
                        3,
                        null);
        assertThat(a.sameFiguresAs(b)).isTrue();
        assertThat(a.sameFiguresAs(null)).isFalse();
    }
}
