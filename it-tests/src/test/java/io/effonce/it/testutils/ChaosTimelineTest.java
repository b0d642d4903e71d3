package io.effonce.it.testutils;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class ChaosTimelineTest {

    private static final List<ChaosTimeline.Bar> BARS =
            List.of(
                    new ChaosTimeline.Bar(1, "kill", "broker 2", 1_000, 9_000, 20_000),
                    // injected while #1 recovers: an overlap
                    new ChaosTimeline.Bar(2, "kill", "taskmanager-1", 5_000, 12_000, 18_000),
                    new ChaosTimeline.Bar(3, "kill", "relay", 25_000, 26_000, 27_000),
                    // never exact: its bar runs to the end
                    new ChaosTimeline.Bar(4, "cut", "link <to> 'db' & co", 30_000, -1, -1));

    @Test
    void overlappingRecoveriesGetLanesOfTheirOwnAndLaterOnesReuseTheFirst() {
        assertThat(ChaosTimeline.lanes(BARS, 40_000)).containsExactly(0, 1, 0, 0);
    }

    @Test
    void theDrawingIsWellFormedSvgWithABarPerFaultAndEveryLabelEscaped() throws Exception {
        String svg =
                ChaosTimeline.svg(
                        "run <1>",
                        40_000,
                        List.of(
                                new ChaosTimeline.Point(0, 0, 0, 0),
                                new ChaosTimeline.Point(20_000, 500, 400, 300)),
                        BARS,
                        List.of(new ChaosTimeline.Tick(1_000, "kill", "broker 2 & more")));

        Document doc =
                DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));

        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(3);
        assertThat(svg)
                .contains("#4 cut: link &lt;to> &apos;db&apos; &amp; co; running after never");
        assertThat(svg)
                .contains("#2 kill: taskmanager-1; running after 7000 ms, exact after 13000 ms");
        // each bar says its kind, not only its number
        assertThat(svg).contains(">1 kill</text>", ">4 cut</text>");
    }

    /** Event ticks stay in a strip of their own: none crosses the totals' lines. */
    @Test
    void eventTicksStayAboveTheTotals() throws Exception {
        String svg =
                ChaosTimeline.svg(
                        "run",
                        40_000,
                        List.of(
                                new ChaosTimeline.Point(0, 0, 0, 0),
                                new ChaosTimeline.Point(20_000, 500, 400, 300)),
                        BARS,
                        List.of(
                                new ChaosTimeline.Tick(1_000, "kill", "broker 2"),
                                new ChaosTimeline.Tick(2_000, "checkpoint", "checkpoint 3")));
        Document doc =
                DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        NodeList lines = doc.getElementsByTagName("line");
        double lowestTick = 0;
        double totalsTop = Double.MAX_VALUE;
        int ticks = 0;
        for (int i = 0; i < lines.getLength(); i++) {
            Element line = (Element) lines.item(i);
            double y1 = Double.parseDouble(line.getAttribute("y1"));
            double y2 = Double.parseDouble(line.getAttribute("y2"));
            if ("event".equals(line.getAttribute("class"))) {
                ticks++;
                lowestTick = Math.max(lowestTick, Math.max(y1, y2));
            } else if (line.getAttribute("x1").equals(line.getAttribute("x2"))) {
                totalsTop = Math.min(totalsTop, Math.min(y1, y2)); // the totals' vertical axis
            }
        }
        assertThat(ticks).isEqualTo(2);
        assertThat(lowestTick).isLessThan(totalsTop);
    }
}
