package io.effonce.job;

import io.effonce.dedup.RecordedSetting;
import io.effonce.sink.Progress;
import io.effonce.sink.ProgressRule;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;

/**
 * When a day is final: once the event-time watermark has passed the end of the day (in the job's
 * zone) plus the acceptance horizon. Deduplication sends any change that late to {@code
 * late_events}, so from then on only a batch recount changes the day. The daily totals retire a key
 * at this instant, and the sink records the last final day with each commit (the sink's {@link
 * ProgressRule}): one rule for both.
 */
public record DayFinality(ZoneId zone, Duration horizon) implements ProgressRule {

    /** The event time at which {@code day} becomes final. */
    public long finalAt(LocalDate day) {
        return day.plusDays(1).atStartOfDay(zone).toInstant().toEpochMilli() + horizon.toMillis();
    }

    /** The last day that is final at {@code watermark}: {@code finalAt(day) <= watermark}. */
    public LocalDate finalThrough(long watermark) {
        return Instant.ofEpochMilli(watermark)
                .minus(horizon)
                .atZone(zone)
                .toLocalDate()
                .minusDays(1);
    }

    /**
     * The zone, recorded with the state: every restored key's day is a date in it, so a restore
     * with another zone is refused.
     */
    public RecordedSetting recordedZone() {
        return new RecordedSetting(
                JobOptions.ZONE.key(),
                zone.getId(),
                // Only another name of the same offset ("UTC", "Z", "Etc/UTC") is the same
                // calendar.
                (recorded, now) ->
                        ZoneId.of(recorded).normalized().equals(ZoneId.of(now).normalized()),
                "the restored totals are days of the recorded zone, and new changes would land in"
                        + " the same keys with other day boundaries.");
    }

    /** The sink's progress at {@code watermark}: the last final day, this zone and horizon. */
    @Override
    public Progress at(long watermark) {
        return new Progress(watermark, finalThrough(watermark), zone.getId(), horizon);
    }
}
