package io.effonce.job.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.dedup.Lateness;
import io.effonce.dedup.SettingChangedException;
import io.effonce.job.DayFinality;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.junit.jupiter.api.Test;

/**
 * The migration refuses a setting the old state recorded that the configured one may not replace,
 * as a restore would: a raised horizon, another zone. A lowered horizon is safe.
 */
class RequireRecordedTest {

    private static final Duration TWO_HOURS = Duration.ofHours(2);

    @Test
    void aRaisedHorizonIsRefusedALoweredOneIsNot() throws Exception {
        MigratedEntry recorded = MigratedEntry.recordedSetting("dedup.horizon", "2 h");

        assertThatThrownBy(() -> check(Duration.ofHours(3), "UTC", recorded))
                .isInstanceOf(SettingChangedException.class)
                .hasMessageContaining(
                        "The restored state was built with dedup.horizon=2 h, this job has"
                                + " dedup.horizon=3 h");
        assertThat(check(Duration.ofHours(1), "UTC", recorded)).as("nothing emitted").isEmpty();
    }

    @Test
    void anotherZoneIsRefusedAnotherNameOfTheSameOneIsNot() throws Exception {
        MigratedEntry recorded = MigratedEntry.recordedSetting("totals.zone", "UTC");

        assertThatThrownBy(() -> check(TWO_HOURS, "Europe/Berlin", recorded))
                .isInstanceOf(SettingChangedException.class)
                .hasMessageContaining("totals.zone=UTC");
        assertThat(check(TWO_HOURS, "Etc/UTC", recorded)).isEmpty();
    }

    private static List<MigratedEntry> check(Duration horizon, String zone, MigratedEntry entry)
            throws Exception {
        Lateness lateness = new Lateness(horizon, true, null);
        DayFinality finality = new DayFinality(ZoneId.of(zone), horizon);
        List<MigratedEntry> out = new ArrayList<>();
        new RequireRecorded(List.of(lateness.recordedHorizon(), finality.recordedZone()))
                .flatMap(entry, new ListCollector<>(out));
        return out;
    }
}
