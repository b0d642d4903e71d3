package io.effonce.job.migrate;

import io.effonce.dedup.RecordedSetting;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Fails the migration (with {@code SettingChangedException}) on a value the old state recorded that
 * the configured setting may not replace, as a restore would; emits nothing. It runs behind a
 * shuffle, after the savepoint's readers have finished and before the new state is written (the
 * bootstrap waits for it as one of its inputs).
 */
final class RequireRecorded implements FlatMapFunction<MigratedEntry, MigratedEntry> {

    private static final long serialVersionUID = 1L;

    private final Map<String, RecordedSetting> byOption;

    RequireRecorded(List<RecordedSetting> settings) {
        this.byOption = new HashMap<>();
        for (RecordedSetting s : settings) {
            byOption.put(s.option(), s);
        }
    }

    @Override
    public void flatMap(MigratedEntry entry, Collector<MigratedEntry> out) {
        byOption.get(entry.option).requireCompatible(List.of(entry.recorded));
    }
}
