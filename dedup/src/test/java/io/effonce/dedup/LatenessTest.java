package io.effonce.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** The rules' settings: read once from the options, checked, one expiry boundary. */
class LatenessTest {

    @Test
    void theOptionsAreReadWithTheirDefaults() {
        Lateness defaults = Lateness.from(new Configuration());
        assertThat(defaults.horizon()).isEqualTo(Duration.ofHours(2));
        assertThat(defaults.watermarkFloor()).isTrue();
        assertThat(defaults.stateTtl()).isNull();

        Configuration conf = new Configuration();
        conf.setString("dedup.horizon", "30 min");
        conf.setString("dedup.watermark-floor.enabled", "false");
        conf.setString("dedup.state-ttl", "3 h");
        Lateness set = Lateness.from(conf);
        assertThat(set.horizon()).isEqualTo(Duration.ofMinutes(30));
        assertThat(set.watermarkFloor()).isFalse();
        assertThat(set.stateTtl()).isEqualTo(Duration.ofHours(3));
    }

    @Test
    void aTtlShorterThanFourHorizonsIsRefusedNamingTheOption() {
        Configuration conf = new Configuration();
        conf.setString("dedup.state-ttl", "7 h");
        assertThatThrownBy(() -> Lateness.from(conf))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dedup.state-ttl (PT7H) must be at least 4 x dedup.horizon");
    }

    @Test
    void aChangeIsLateAndItsIdForgottenAtOneInstantSaturatedAtTheEndOfTime() {
        Lateness lateness = new Lateness(Duration.ofMillis(10), true, null);
        assertThat(lateness.expiryOf(100)).isEqualTo(110);
        assertThat(lateness.expiryOf(Long.MAX_VALUE - 5)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theRecordedHorizonRefusesARaiseAndTakesALowering() {
        assertThat(new Lateness(Duration.ofHours(2), true, null).recordedHorizon().option())
                .isEqualTo("dedup.horizon");
        new Lateness(Duration.ofHours(1), true, null)
                .recordedHorizon()
                .requireCompatible(List.of("2 h"));
        assertThatThrownBy(
                        () ->
                                new Lateness(Duration.ofHours(3), true, null)
                                        .recordedHorizon()
                                        .requireCompatible(List.of("2 h")))
                .isInstanceOf(SettingChangedException.class);
    }
}
