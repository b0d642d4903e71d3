package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The day that becomes final at an instant and the last final day at a watermark agree. */
class DayFinalityTest {

    @Test
    void aDayIsFinalFromItsFinalInstantOnAndNotAMillisecondBefore() {
        LocalDate first = LocalDate.parse("2026-01-01");
        for (String zone :
                List.of("UTC", "Europe/Berlin", "America/New_York", "Pacific/Kiritimati")) {
            for (Duration horizon :
                    List.of(Duration.ZERO, Duration.ofMinutes(90), Duration.ofHours(26))) {
                DayFinality finality = new DayFinality(ZoneId.of(zone), horizon);
                // a year covers both daylight-saving switches
                for (LocalDate day = first;
                        day.isBefore(first.plusDays(366));
                        day = day.plusDays(1)) {
                    long at = finality.finalAt(day);
                    assertThat(finality.finalThrough(at))
                            .as("%s %s %s", zone, horizon, day)
                            .isEqualTo(day);
                    assertThat(finality.finalThrough(at - 1)).isEqualTo(day.minusDays(1));
                }
            }
        }
    }
}
