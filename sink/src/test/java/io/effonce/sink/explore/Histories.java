package io.effonce.sink.explore;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.statistics.Statistics;

/** The histories both explorations draw, and what they report about them. */
final class Histories {

    private Histories() {}

    static Arbitrary<List<Step>> any() {
        return Step.any().list().ofMinSize(1).ofMaxSize(40);
    }

    /** Whether to play the histories with the takeover from before the start protocol. */
    static boolean unconditional() {
        return Boolean.getBoolean("effonce.explore.unconditional");
    }

    /** Reports what the history made paused attempts do, so a run says what it explored. */
    static void collect(TakeoverExplorer<?, ?> explorer) {
        Statistics.label("paused attempts woken")
                .collect(explorer.woken().isEmpty() ? "none" : "some");
        for (String outcome : explorer.woken()) {
            Statistics.label("a woken attempt").collect(outcome);
        }
        Statistics.label("froze inside a step").collect(explorer.frozeInsideAStep());
    }
}
