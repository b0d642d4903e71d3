package io.effonce.sink;

import java.time.Duration;
import java.time.LocalDate;
import org.apache.flink.annotation.PublicEvolving;

/**
 * How far the totals a commit makes visible are complete: the writer's event-time watermark at the
 * checkpoint's barrier, and the last day final at it. {@link #UNKNOWN} leaves what was recorded.
 *
 * @param watermark epoch millis, or {@code Long.MIN_VALUE} when none has arrived yet
 * @param finalThrough the last final day, or {@code null} when not known
 * @param dayZone the zone whose dates the days are, or {@code null} when not known
 * @param horizon how far behind the watermark a change can still be accepted ({@code
 *     dedup.horizon}), or {@code null} when not known: the totals are complete only through {@code
 *     watermark - horizon}
 */
@PublicEvolving
public record Progress(long watermark, LocalDate finalThrough, String dayZone, Duration horizon) {

    public static final Progress UNKNOWN = new Progress(Long.MIN_VALUE, null, null, null);

    public boolean hasWatermark() {
        return watermark != Long.MIN_VALUE;
    }
}
