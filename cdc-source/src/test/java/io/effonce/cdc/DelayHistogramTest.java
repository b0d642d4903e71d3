package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DelayHistogramTest {

    @Test
    void percentilesAreTheUpperBoundOfTheirBucket() {
        DelayHistogram h = new DelayHistogram();
        for (int ms = 0; ms < 98; ms++) {
            h.record(ms); // 98 delays under 100 ms
        }
        h.record(455); // 10 ms bucket 450..459
        h.record(12_345); // beyond 10 s
        DelayHistogram.Snapshot s = h.snapshot();

        assertThat(s.count()).isEqualTo(100);
        assertThat(s.percentile(50)).isEqualTo(50); // the 50th delay is 49 ms: bucket 49..50
        assertThat(s.percentile(99)).isEqualTo(460);
        assertThat(s.percentile(100)).isEqualTo(10_000);
    }

    @Test
    void aSnapshotSinceAnEarlierOneHoldsOnlyWhatCameBetween() {
        DelayHistogram h = new DelayHistogram();
        h.record(5_000);
        DelayHistogram.Snapshot before = h.snapshot();
        h.record(3);
        h.record(-20); // another host's clock: counts as 0

        DelayHistogram.Snapshot between = h.snapshot().since(before);

        assertThat(between.count()).isEqualTo(2);
        assertThat(between.percentile(100)).isEqualTo(4);
        assertThat(new DelayHistogram().snapshot().percentile(99)).isEqualTo(-1);
    }
}
