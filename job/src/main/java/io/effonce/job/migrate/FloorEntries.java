package io.effonce.job.migrate;

import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/** Each dedup subtask's watermark floor, on its way to the merchant stage's operator state. */
final class FloorEntries extends RichMapFunction<Long, MigratedEntry> {

    private static final long serialVersionUID = 1L;

    private transient LongMaximum largest;

    @Override
    public void open(OpenContext context) {
        largest = new LongMaximum(Long.MIN_VALUE);
        getRuntimeContext().addAccumulator(MigrationReport.FLOOR, largest);
    }

    @Override
    public MigratedEntry map(Long floor) {
        largest.add(floor);
        return MigratedEntry.floor(floor);
    }
}
