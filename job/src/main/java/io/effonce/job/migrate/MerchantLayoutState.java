package io.effonce.job.migrate;

import io.effonce.dedup.RecordedSetting;
import io.effonce.dedup.WatermarkFloor;
import io.effonce.job.LedgerPipeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.input.KeyedStateInputFormat;
import org.apache.flink.state.api.input.SourceBuilder;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The merchant stage's state read back from a savepoint of the merchant layout taken before 0.3.0
 * (its totals under the old class name), to be written again under the job's own: the totals and
 * ids of every merchant-day ({@link MerchantStateReader}), the floor, the recorded settings.
 */
final class MerchantLayoutState {

    private MerchantLayoutState() {}

    static DataStream<MigratedEntry> entries(
            StreamExecutionEnvironment env,
            CheckpointMetadata savepoint,
            SavepointReader old,
            @Nullable Duration ttl,
            RecordedSetting horizon,
            RecordedSetting zone)
            throws Exception {
        String uid = LedgerPipeline.MERCHANT_TOTALS_UID;
        KeyedStateInputFormat<String, Long, MigratedEntry> days =
                new KeyedStateInputFormat<>(
                        operatorState(savepoint, uid),
                        new HashMapStateBackend(),
                        Configuration.fromMap(env.getConfiguration().toMap()),
                        new MerchantStateReader(ttl),
                        env.getConfig());
        DataStream<MigratedEntry> state =
                SourceBuilder.fromFormat(env, days, TypeInformation.of(MigratedEntry.class))
                        .name("Merchant-days of " + uid);
        return state.union(
                floor(old, uid),
                settingsChecked(
                        old,
                        List.of(new RecordedUnder(horizon, uid), new RecordedUnder(zone, uid))));
    }

    /** Each subtask's watermark floor kept under {@code uid}. */
    static DataStream<MigratedEntry> floor(SavepointReader old, String uid) throws Exception {
        return old.readUnionState(
                        OperatorIdentifier.forUid(uid), WatermarkFloor.STATE_NAME, Types.LONG)
                .map(new FloorEntries(), TypeInformation.of(MigratedEntry.class))
                .name("Watermark floor");
    }

    /** A setting and the uid of the operator that recorded it. */
    record RecordedUnder(RecordedSetting setting, String uid) {}

    /**
     * The values each setting recorded under its uid, for the bootstrap to check as a restore would
     * (it refuses a forbidden change before it writes anything).
     */
    static DataStream<MigratedEntry> settingsChecked(
            SavepointReader old, List<RecordedUnder> settings) throws Exception {
        List<DataStream<MigratedEntry>> recorded = new ArrayList<>();
        for (RecordedUnder under : settings) {
            String option = under.setting().option();
            recorded.add(
                    old.readUnionState(
                                    OperatorIdentifier.forUid(under.uid()),
                                    under.setting().stateName(),
                                    Types.STRING)
                            .map(
                                    value -> MigratedEntry.recordedSetting(option, value),
                                    TypeInformation.of(MigratedEntry.class))
                            .name("Recorded " + option));
        }
        DataStream<MigratedEntry> all = recorded.get(0);
        for (DataStream<MigratedEntry> more : recorded.subList(1, recorded.size())) {
            all = all.union(more);
        }
        return all.keyBy(e -> e.option, Types.STRING)
                .flatMap(
                        new RequireRecorded(settings.stream().map(RecordedUnder::setting).toList()),
                        TypeInformation.of(MigratedEntry.class))
                .name("Recorded settings checked");
    }

    /** Whether the savepoint holds state of the operator with {@code uid}. */
    static boolean holds(CheckpointMetadata savepoint, String uid) {
        OperatorID id = OperatorIdentifier.forUid(uid).getOperatorId();
        return savepoint.getOperatorStates().stream().anyMatch(s -> s.getOperatorID().equals(id));
    }

    private static OperatorState operatorState(CheckpointMetadata savepoint, String uid) {
        OperatorID id = OperatorIdentifier.forUid(uid).getOperatorId();
        return savepoint.getOperatorStates().stream()
                .filter(s -> s.getOperatorID().equals(id))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "The savepoint holds no state of the merchant stage (uid "
                                                + uid
                                                + "): it is not a savepoint of this job"));
    }
}
