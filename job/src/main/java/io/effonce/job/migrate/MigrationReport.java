package io.effonce.job.migrate;

import org.apache.flink.api.common.JobExecutionResult;

/** What a migration moved, from the batch job's accumulators. */
public record MigrationReport(
        long openDays,
        long idsRead,
        long idsPlaced,
        long idsPastHorizon,
        long floor,
        long sinkKeys) {

    static final String TOTALS = "totals";
    static final String IDS_READ = "ids-read";
    static final String IDS_PLACED = "ids-placed";
    static final String IDS_PAST_HORIZON = "ids-past-horizon";
    static final String FLOOR = "floor";
    static final String SINK_KEYS = "sink-keys";

    static MigrationReport of(JobExecutionResult result) {
        return new MigrationReport(
                count(result, TOTALS, 0),
                count(result, IDS_READ, 0),
                count(result, IDS_PLACED, 0),
                count(result, IDS_PAST_HORIZON, 0),
                count(result, FLOOR, Long.MIN_VALUE),
                count(result, SINK_KEYS, 0));
    }

    private static long count(JobExecutionResult result, String name, long none) {
        Long value = result.getAccumulatorResult(name);
        return value == null ? none : value;
    }

    @Override
    public String toString() {
        return String.format(
                "%,d merchant-day totals, %,d remembered event ids (%,d placed in their"
                        + " merchant's days, %,d past their horizon), watermark floor %d, %,d keys"
                        + " of the sink's state",
                openDays, idsRead, idsPlaced, idsPastHorizon, floor, sinkKeys);
    }
}
