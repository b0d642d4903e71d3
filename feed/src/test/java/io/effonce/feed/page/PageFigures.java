package io.effonce.feed.page;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The figures a browser shows on the live page, read from its DOM (the rows' {@code data-*}
 * attributes hold the raw minor units the cells format).
 *
 * @param events snapshots the page has rendered since it opened
 * @param restores the checkpoints of the restore markers shown, newest first
 * @param committedLag how far the committed totals are behind the ledger, in event time
 * @param liveLag how long ago the newest live total shown was written
 * @param chart the chart's lines: {@code merchant|currency} → {@code hour:total,...} in order
 */
public record PageFigures(
        long events,
        String day,
        String asOfCheckpoint,
        long commitNotices,
        String asOfText,
        String error,
        List<String> restores,
        Lag committedLag,
        Lag liveLag,
        Map<String, String> chart,
        List<Shown> rows) {

    /** A lag as shown: its text, its colour class ({@code lag-ok}, {@code lag-warn}, none). */
    public record Lag(String text, String colour, Long seconds) {}

    /**
     * One row: {@code key} is {@code merchant|day|currency}; a total the page shows as "—" is null.
     */
    public record Shown(
            String key,
            String merchant,
            String currency,
            Long committed,
            Long live,
            boolean dayFinal,
            String badges) {}

    /** The row of {@code merchant} in {@code currency}, if shown. */
    public Optional<Shown> row(String merchant, String currency) {
        return rows.stream()
                .filter(r -> r.merchant().equals(merchant) && r.currency().equals(currency))
                .findFirst();
    }

    @SuppressWarnings("unchecked")
    static PageFigures from(Map<String, Object> page) {
        List<Map<String, Object>> rows = (List<Map<String, Object>>) page.get("rows");
        return new PageFigures(
                number(page.get("events")),
                text(page.get("day")),
                text(page.get("asOfCheckpoint")),
                number(page.get("notices")),
                text(page.get("asOf")),
                text(page.get("error")),
                ((List<Object>) page.get("restores")).stream().map(PageFigures::text).toList(),
                lag(((List<Map<String, Object>>) page.get("lags")).get(0)),
                lag(((List<Map<String, Object>>) page.get("lags")).get(1)),
                ((List<Map<String, Object>>) page.get("chart"))
                        .stream()
                                .collect(
                                        Collectors.toMap(
                                                l -> text(l.get("key")),
                                                l -> text(l.get("points")),
                                                (a, b) -> a,
                                                LinkedHashMap::new)),
                rows.stream()
                        .map(
                                r ->
                                        new Shown(
                                                text(r.get("key")),
                                                text(r.get("merchant")),
                                                text(r.get("currency")),
                                                optionalNumber(r.get("committed")),
                                                optionalNumber(r.get("live")),
                                                "true".equals(r.get("final")),
                                                text(r.get("badges"))))
                        .toList());
    }

    private static Lag lag(Map<String, Object> shown) {
        return new Lag(
                text(shown.get("text")),
                text(shown.get("colour")),
                optionalNumber(shown.get("seconds")));
    }

    private static String text(Object o) {
        return o == null ? "" : o.toString();
    }

    private static long number(Object o) {
        Long n = optionalNumber(o);
        return n == null ? 0 : n;
    }

    private static Long optionalNumber(Object o) {
        String s = text(o);
        return s.isEmpty() ? null : Long.valueOf(s);
    }
}
