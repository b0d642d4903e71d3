package io.effonce.sink.internal;

import io.effonce.sink.Progress;
import io.effonce.sink.ProgressRule;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The event-time watermark a sink subtask had passed at each barrier whose checkpoint it has not
 * committed yet: how far that checkpoint's totals are complete, recorded when it commits.
 */
final class BarrierWatermarks {

    /** The watermark passed so far ({@code Long.MIN_VALUE}: none yet). */
    private long watermark = Long.MIN_VALUE;

    private final NavigableMap<Long, Long> atBarrier = new TreeMap<>();

    /** A watermark passed; the end of a bounded input says nothing a database can hold. */
    void passed(long mark) {
        if (mark != Long.MAX_VALUE) {
            watermark = mark;
        }
    }

    /** Barrier {@code checkpointId} passed: its checkpoint is complete through the watermark. */
    void barrier(long checkpointId) {
        atBarrier.put(checkpointId, watermark);
    }

    /**
     * How far the totals of checkpoint {@code checkpointId} are complete, by {@code rule} over the
     * watermark at that barrier. Forgets the barriers up to it.
     */
    Progress progressAt(long checkpointId, ProgressRule rule) {
        Map.Entry<Long, Long> at = atBarrier.floorEntry(checkpointId);
        atBarrier.headMap(checkpointId, true).clear();
        if (at == null || at.getValue() == Long.MIN_VALUE) {
            return Progress.UNKNOWN;
        }
        return rule.at(at.getValue());
    }
}
