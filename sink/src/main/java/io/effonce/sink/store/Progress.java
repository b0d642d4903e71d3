package io.effonce.sink.store;

import java.time.LocalDate;

/**
 * How far the totals a commit makes visible are complete: the writer's event-time watermark at the
 * checkpoint's barrier, and the last day final at it. {@link #UNKNOWN} leaves what was recorded.
 *
 * @param watermark epoch millis, or {@code Long.MIN_VALUE} when none has arrived yet
 * @param finalThrough the last final day, or {@code null} when not known
 * @param dayZone the zone whose dates the days are, or {@code null} when not known
 */
public record Progress(long watermark, LocalDate finalThrough, String dayZone) {

    public static final Progress UNKNOWN = new Progress(Long.MIN_VALUE, null, null);

    public boolean hasWatermark() {
        return watermark != Long.MIN_VALUE;
    }
}
