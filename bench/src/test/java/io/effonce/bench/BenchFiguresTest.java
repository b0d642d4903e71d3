package io.effonce.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the throughput benchmark prints beside its medians, and when it refuses to measure. */
class BenchFiguresTest {

    @Test
    void aRatioIsPrintedWithTheLowestAndHighestRoundBesideItsMedian() {
        // Last round's three pairs (issue 74): the spread is as wide as the gap it is about.
        assertThat(Spread.of(1.55, 1.08, 1.22).ratio()).isEqualTo("1.22 (1.08–1.55)");
        assertThat(Spread.of(1.0, 2.0).median()).isEqualTo(1.5);
    }

    @Test
    void aMachineLoadedAboveItsCoresIsRefusedNamingTheWayToMeasureAnyway() {
        assertThat(BusyMachine.refusal(1.9, 2)).isEmpty();
        assertThat(BusyMachine.refusal(2.0, 2)).isEmpty();
        assertThat(BusyMachine.refusal(2.6, 2))
                .get()
                .asString()
                .contains("load average 2.60", "2 cores", "--allow-busy");
    }
}
