package io.effonce.job.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** The builder's defaults and its checks, which say how to fix a bad setting. */
class EventTimeDedupBuilderTest {

    @Test
    void defaultsAreTwoHoursFloorOnAndNoTtl() {
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        assertThat(dedup.lateness().horizon()).isEqualTo(Duration.ofHours(2));
        assertThat(dedup.lateness().watermarkFloor()).isTrue();
        assertThat(dedup.lateness().stateTtl()).isNull();
    }

    @Test
    void optionsAreReadFromFlinkConfiguration() {
        Configuration conf = new Configuration();
        conf.setString("dedup.horizon", "30 min");
        conf.setString("dedup.watermark-floor.enabled", "false");
        conf.setString("dedup.state-ttl", "3 h");
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().configure(conf).build();
        assertThat(dedup.lateness().horizon()).isEqualTo(Duration.ofMinutes(30));
        assertThat(dedup.lateness().watermarkFloor()).isFalse();
        assertThat(dedup.lateness().stateTtl()).isEqualTo(Duration.ofHours(3));
    }

    @Test
    void ttlShorterThanFourHorizonsIsRejectedWithAFix() {
        assertThatThrownBy(
                        () ->
                                EventTimeDedup.<Change>builder()
                                        .stateTtl(Duration.ofHours(7))
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dedup.state-ttl (PT7H) must be at least 4 x dedup.horizon")
                .hasMessageContaining("leave it unset");
    }

    @Test
    void horizonBelowOneMillisecondIsRejected() {
        assertThatThrownBy(() -> EventTimeDedup.<Change>builder().horizon(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dedup.horizon must be at least 1 ms");
        assertThatThrownBy(
                        () ->
                                EventTimeDedup.<Change>builder()
                                        .horizon(Duration.ofMinutes(-1))
                                        .build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
