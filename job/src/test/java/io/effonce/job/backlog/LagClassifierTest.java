package io.effonce.job.backlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LagClassifierTest {

    private final LagClassifier lag = new LagClassifier(Duration.ofSeconds(10));

    @Test
    void aReaderIsBehindOnceARecordIsOlderThanTheThreshold() {
        assertThat(lag.observe(10_000)).as("at the threshold: not yet").isFalse();
        assertThat(lag.observe(10_001)).isTrue();
        assertThat(lag.behind()).isTrue();
    }

    @Test
    void itCatchesUpOnlyBelowHalfTheThresholdSoItDoesNotFlapAroundIt() {
        lag.observe(60_000);
        assertThat(lag.observe(9_000)).as("below the threshold, above half of it").isFalse();
        assertThat(lag.behind()).isTrue();
        assertThat(lag.observe(5_000)).isFalse();
        assertThat(lag.observe(4_999)).isTrue();
        assertThat(lag.behind()).isFalse();
        assertThat(lag.observe(9_000))
                .as("caught up stays caught up below the threshold")
                .isFalse();
    }

    @Test
    void aThresholdThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> new LagClassifier(Duration.ZERO))
                .hasMessageContaining("must be positive");
    }
}
