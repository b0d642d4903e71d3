package io.effonce.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WatermarkFloorTest {

    @Test
    void aLowerWatermarkNeverLowersTheFloor() {
        WatermarkFloor floor = new WatermarkFloor();
        assertThat(floor.advanceInEventTime(1_000)).isTrue();
        assertThat(floor.advanceInEventTime(500)).isTrue();
        assertThat(floor.value()).isEqualTo(1_000);
    }

    @Test
    void theEndOfInputIsNotEventTimeAndLeavesTheFloorWhereItWas() {
        WatermarkFloor floor = new WatermarkFloor();
        floor.advanceInEventTime(1_000);
        assertThat(floor.advanceInEventTime(Long.MAX_VALUE)).isFalse();
        assertThat(floor.value())
                .as("a floor at MAX_VALUE would judge every change after a drained savepoint late")
                .isEqualTo(1_000);
    }
}
