package io.effonce.job;

import io.effonce.sink.SinkStateLayout;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A savepoint taken before 0.3.0 names the job's key and value by their old classes ({@code
 * io.effonce.sink.store}). The job cannot restore it: its tasks would fail at every restart with
 * Flink's reason deep in their history. Checked in {@code main} with the other start-up checks, it
 * is refused once, naming the migration to run.
 */
public final class SavepointCheck {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointCheck.class);
    private static final String OLD_PACKAGE = "io.effonce.sink.store";

    private SavepointCheck() {}

    /** The refusal, if the savepoint the job restores names the old classes; else nothing. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static List<String> run(ReadableConfig config, SerializerConfig serializers) {
        String path = config.get(StateRecoveryOptions.SAVEPOINT_PATH);
        if (path == null) {
            return List.of();
        }
        StateMetaInfoSnapshot lastValues;
        try {
            lastValues =
                    SavepointLoader.loadOperatorStateMetadata(
                                    path, OperatorIdentifier.forUid(LedgerPipeline.SINK_UID))
                            .get(SinkStateLayout.LAST_VALUE_STATE);
        } catch (Exception e) {
            if (namesAnOldClass(e)) {
                return List.of(refusal(path));
            }
            // Storage main cannot read, or a native savepoint or incremental checkpoint (only a
            // canonical one names its classes where this reads): the tasks will tell.
            LOG.warn("The state the job restores ({}) is not checked where main runs: {}", path, e);
            return List.of();
        }
        if (lastValues == null) {
            return List.of();
        }
        TypeSerializerSnapshot restored =
                lastValues.getTypeSerializerSnapshot(
                        StateMetaInfoSnapshot.CommonSerializerKeys.VALUE_SERIALIZER);
        TypeSerializerSnapshot current =
                TypeInformation.of(DailyTotal.class)
                        .createSerializer(serializers)
                        .snapshotConfiguration();
        return current.resolveSchemaCompatibility(restored).isIncompatible()
                ? List.of(refusal(path))
                : List.of();
    }

    private static boolean namesAnOldClass(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotFoundException
                    && t.getMessage() != null
                    && t.getMessage().contains(OLD_PACKAGE)) {
                return true;
            }
        }
        return false;
    }

    private static String refusal(String path) {
        return "The savepoint "
                + path
                + " was taken before release 0.3.0: its state names the job's key and value by"
                + " their old classes ("
                + OLD_PACKAGE
                + ".MerchantDayKey, DailyTotal), which 0.3.0 renamed. Migrate it once with flink"
                + " run -c io.effonce.job.migrate.MigrateSavepoint"
                + " effonce-job-<version>-migrate.jar --migrate.from "
                + path
                + " --migrate.to DIR, with the job's dedup.*, totals.zone and"
                + " sink.retired-retention options (and --ledger.url for a savepoint of the two-stage"
                + " layout; job/README.md, \"Upgrades\"), then restore the job from DIR.";
    }
}
