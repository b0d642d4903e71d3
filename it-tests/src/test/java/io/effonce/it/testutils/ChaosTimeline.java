package io.effonce.it.testutils;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A chaos run drawn as an SVG a reader can open in a browser: at the top one bar per fault, from
 * the fault to running again (red) and on to exact again (orange, a green end where the totals
 * matched the ledger), each labelled with its number and kind, bars of faults whose recoveries
 * overlap in lanes of their own; then a strip with a tick for every event of the run, coloured by
 * kind; below, the ledger's grand total, the live one (sink + late) and the committed one
 * (committed + late) over time, which no tick crosses. Hovering shows each bar's, tick's and line's
 * text.
 */
final class ChaosTimeline {

    /** Grand totals sampled at one moment, in minor units. */
    record Point(long atMillis, long ledger, long live, long committed) {}

    /** One fault and its recovery, in milliseconds of the run (-1: not reached). */
    record Bar(int number, String kind, String label, long faultAt, long runningAt, long exactAt) {}

    /** A moment of the run. */
    record Tick(long atMillis, String kind, String label) {}

    private static final int WIDTH = 1000;
    private static final int LEFT = 90;
    private static final int RIGHT = 20;
    private static final int LANE = 16;
    private static final int TOTALS_HEIGHT = 300;
    private static final int EVENTS_HEIGHT = 14;

    private ChaosTimeline() {}

    static String svg(
            String name, long tMax, List<Point> points, List<Bar> bars, List<Tick> ticks) {
        long end = Math.max(1, tMax);
        int[] laneOf = lanes(bars, end);
        int lanes = 0;
        for (int lane : laneOf) {
            lanes = Math.max(lanes, lane + 1);
        }
        int lanesTop = 30;
        int eventsTop = lanesTop + lanes * LANE + 8;
        int totalsTop = eventsTop + EVENTS_HEIGHT + 12;
        int base = totalsTop + TOTALS_HEIGHT;
        int height = base + 60;
        double sx = (double) (WIDTH - LEFT - RIGHT) / end;
        StringBuilder s = new StringBuilder();
        s.append(
                fmt(
                        "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d'"
                                + " font-family='sans-serif' font-size='11'>%n"
                                + "<rect width='100%%' height='100%%' fill='white'/>%n"
                                + "<text x='%d' y='18' font-size='14'>%s: faults, recoveries and"
                                + " totals over time (%d ms)</text>%n",
                        WIDTH, height, LEFT, escape(name), end));
        for (int i = 0; i < bars.size(); i++) {
            s.append(bar(bars.get(i), lanesTop + laneOf[i] * LANE, sx, end));
        }
        s.append(events(ticks, eventsTop, sx));
        s.append(totals(points, totalsTop, base, sx));
        s.append(legend(base + 30));
        s.append("</svg>\n");
        return s.toString();
    }

    /** The first lane free at each fault: recoveries that overlap get lanes of their own. */
    static int[] lanes(List<Bar> bars, long end) {
        List<Long> laneEnds = new ArrayList<>();
        int[] laneOf = new int[bars.size()];
        for (int i = 0; i < bars.size(); i++) {
            Bar b = bars.get(i);
            int lane = 0;
            while (lane < laneEnds.size() && laneEnds.get(lane) > b.faultAt()) {
                lane++;
            }
            long barEnd = b.exactAt() >= 0 ? b.exactAt() : end;
            if (lane == laneEnds.size()) {
                laneEnds.add(barEnd);
            } else {
                laneEnds.set(lane, barEnd);
            }
            laneOf[i] = lane;
        }
        return laneOf;
    }

    private static String bar(Bar b, int y, double sx, long end) {
        long running = b.runningAt() >= 0 ? b.runningAt() : end;
        long exact = b.exactAt() >= 0 ? b.exactAt() : end;
        String title =
                escape(
                        "#%d %s: %s; running after %s, exact after %s"
                                .formatted(
                                        b.number(),
                                        b.kind(),
                                        b.label(),
                                        after(b.faultAt(), b.runningAt()),
                                        after(b.faultAt(), b.exactAt())));
        double x0 = LEFT + b.faultAt() * sx;
        double x1 = LEFT + running * sx;
        double x2 = LEFT + exact * sx;
        StringBuilder s = new StringBuilder("<g><title>").append(title).append("</title>");
        s.append(rect(x0, y, x1 - x0, "#d62728"));
        s.append(rect(x1, y, x2 - x1, "#ff9900"));
        if (b.exactAt() >= 0) {
            s.append(rect(x2 - 1, y, 2, "darkgreen"));
        }
        s.append(
                fmt(
                        "<text x='%.1f' y='%d' font-size='9'>%d %s</text>",
                        x0 + 1, y + 10, b.number(), escape(b.kind())));
        return s.append("</g>\n").toString();
    }

    private static String after(long from, long to) {
        return to < 0 ? "never" : (to - from) + " ms";
    }

    /** A strip of short ticks, one per event, between the fault bars and the totals. */
    private static String events(List<Tick> ticks, int top, double sx) {
        StringBuilder s =
                new StringBuilder(
                        fmt(
                                "<text x='4' y='%d' font-size='9'>events</text>%n",
                                top + EVENTS_HEIGHT - 3));
        for (Tick t : ticks) {
            double x = LEFT + t.atMillis() * sx;
            s.append(
                    fmt(
                            "<line class='event' x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s'"
                                    + " stroke-width='1.5'><title>%s: %s</title></line>%n",
                            x,
                            top,
                            x,
                            top + EVENTS_HEIGHT,
                            color(t.kind()),
                            escape(t.kind()),
                            escape(t.label())));
        }
        return s.toString();
    }

    private static String totals(List<Point> points, int top, int base, double sx) {
        long yMax = 1;
        for (Point p : points) {
            yMax = Math.max(yMax, Math.max(p.ledger(), Math.max(p.live(), p.committed())));
        }
        double sy = (double) (base - top) / yMax;
        StringBuilder s = new StringBuilder();
        s.append(
                fmt(
                        "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>"
                                + "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>"
                                + "<text x='4' y='%d'>%,d</text><text x='4' y='%d'>0</text>%n",
                        LEFT,
                        base,
                        WIDTH - RIGHT,
                        base,
                        LEFT,
                        top,
                        LEFT,
                        base,
                        top + 4,
                        yMax,
                        base));
        s.append(line(points, Point::ledger, base, sx, sy, "#1f77b4", 3, "ledger (oracle)"));
        s.append(line(points, Point::live, base, sx, sy, "#2ca02c", 1.5, "live + late"));
        s.append(line(points, Point::committed, base, sx, sy, "#9467bd", 1.5, "committed + late"));
        return s.toString();
    }

    private static String line(
            List<Point> points,
            java.util.function.ToLongFunction<Point> value,
            int base,
            double sx,
            double sy,
            String color,
            double width,
            String title) {
        StringBuilder xy = new StringBuilder();
        for (Point p : points) {
            xy.append(
                    fmt("%.1f,%.1f ", LEFT + p.atMillis() * sx, base - value.applyAsLong(p) * sy));
        }
        return fmt(
                "<polyline fill='none' stroke='%s' stroke-width='%.1f' points='%s'>"
                        + "<title>%s</title></polyline>%n",
                color, width, xy.toString().trim(), title);
    }

    private static String legend(int y) {
        String[][] entries = {
            {"#d62728", "fault to running"},
            {"#ff9900", "running to exact"},
            {"darkgreen", "exact"},
            {"#1f77b4", "ledger"},
            {"#2ca02c", "live + late"},
            {"#9467bd", "committed + late"},
            {"purple", "flush"},
            {"gray", "other event"}
        };
        StringBuilder s = new StringBuilder();
        int x = LEFT;
        for (String[] entry : entries) {
            s.append(
                    fmt(
                            "<rect x='%d' y='%d' width='12' height='12' fill='%s'/>"
                                    + "<text x='%d' y='%d'>%s</text>%n",
                            x, y, entry[0], x + 16, y + 10, entry[1]));
            x += 16 + entry[1].length() * 6 + 14; // about 6 px a character at 11 px
        }
        return s.toString();
    }

    private static String color(String kind) {
        return switch (kind) {
            case "kill", "cut", "pause" -> "red";
            case "restore" -> "orange";
            case "checkpoint" -> "#17becf";
            case "exact" -> "darkgreen";
            case "flush" -> "purple";
            default -> "gray";
        };
    }

    private static String rect(double x, int y, double w, String fill) {
        return fmt(
                "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='%s'/>",
                x, y, Math.max(w, 0.5), LANE - 3, fill);
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace("'", "&apos;");
    }
}
