package io.effonce.job.migrate;

import io.effonce.dedup.RecordedSetting;
import io.effonce.sink.PostgresStoreConfig;
import io.effonce.sink.store.MerchantDayKey;
import java.time.Duration;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The merchant stage's state built from a savepoint of the two-stage layout (0.1.0, or 0.2.x run
 * with {@code pipeline.layout=TWO_STAGE}):
 *
 * <ol>
 *   <li>the open merchant-days' totals are read from {@code daily-totals}, the remembered event ids
 *       from {@code dedup-by-event-id};
 *   <li>each id's merchant is looked up in the ledger (the old state keys ids by event id alone);
 *   <li>per merchant, each id is placed in every open day of its merchant ({@link IdsOfOpenDays}
 *       says why that finds every copy);
 *   <li>the dedup stage's floor and the settings both stages recorded come along.
 * </ol>
 */
final class TwoStageState {

    private TwoStageState() {}

    static DataStream<MigratedEntry> entries(
            SavepointReader old,
            PostgresStoreConfig ledger,
            @Nullable Duration ttl,
            RecordedSetting horizon,
            RecordedSetting zone)
            throws Exception {
        TypeInformation<MigratedEntry> entries = TypeInformation.of(MigratedEntry.class);
        DataStream<MigratedEntry> ids =
                old.readKeyedState(
                                OperatorIdentifier.forUid(TwoStageLayout.DEDUP_UID),
                                new SeenIdsReader(ttl),
                                Types.STRING,
                                Types.STRING)
                        .transform(
                                "Merchants of remembered ids", entries, new LedgerMerchants(ledger))
                        // Its own task, behind a blocking exchange: a refusal fails it after the
                        // reader has finished, so the job's failure is the refusal itself.
                        .disableChaining();
        DataStream<MigratedEntry> totals =
                old.readKeyedState(
                        OperatorIdentifier.forUid(TwoStageLayout.TOTALS_UID),
                        new DailyTotalsReader(),
                        TypeInformation.of(MerchantDayKey.class),
                        entries);
        DataStream<MigratedEntry> placed =
                ids.union(totals)
                        .keyBy(e -> e.merchant, Types.STRING)
                        .process(new IdsOfOpenDays(), entries)
                        .name("Ids in their merchant's open days");
        return placed.union(
                MerchantLayoutState.floor(old, TwoStageLayout.DEDUP_UID),
                MerchantLayoutState.settingsChecked(
                        old,
                        List.of(
                                new MerchantLayoutState.RecordedUnder(
                                        horizon, TwoStageLayout.DEDUP_UID),
                                new MerchantLayoutState.RecordedUnder(
                                        zone, TwoStageLayout.TOTALS_UID))));
    }

    /** Whether the savepoint is of the two-stage layout. */
    static boolean isLayoutOf(CheckpointMetadata savepoint) {
        return MerchantLayoutState.holds(savepoint, TwoStageLayout.DEDUP_UID);
    }
}
