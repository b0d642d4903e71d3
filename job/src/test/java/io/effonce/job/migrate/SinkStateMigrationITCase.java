package io.effonce.job.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.job.DailyTotal;
import io.effonce.job.LedgerPipeline;
import io.effonce.job.MerchantDayKey;
import io.effonce.job.SavepointCheck;
import io.effonce.sink.SinkStateLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink's state moves under the job's own classes whole: a live key's last value, a retired
 * key's final value and a deleted key's tombstone (kept for {@code sink.retired-retention}, which
 * only the repair after the sink's database went back reads), and the runs of its lineage. The
 * releases' whole-job fixtures hold none of the last three (their runs retired nothing), so the old
 * state is written here under the old class names, as the sink of 0.2.x kept it.
 */
class SinkStateMigrationITCase {

    private static final OperatorIdentifier SINK =
            OperatorIdentifier.forUid(LedgerPipeline.SINK_UID);
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final LocalDate DAY = LocalDate.of(2026, 11, 28);

    @TempDir Path dir;

    @Test
    void retainedValuesTombstonesAndTheLineageMoveUnderTheNewClasses() throws Exception {
        String old = dir.resolve("old").toUri().toString();
        String migrated = dir.resolve("migrated").toUri().toString();
        writeOldSinkState(old);
        assertThat(SavepointCheck.run(restoring(old), new SerializerConfigImpl()))
                .as("the state written here names the old classes")
                .isNotEmpty();

        StreamExecutionEnvironment env = batch();
        SavepointReader reader = SavepointReader.read(env, old, new HashMapStateBackend());
        SavepointWriter.fromExistingSavepoint(env, old, new HashMapStateBackend())
                .removeOperator(SINK)
                .withOperator(SINK, MigrateSavepoint.sinkState(reader, RETENTION))
                .write(migrated);
        env.execute("migrate the sink's state");

        SavepointReader after = SavepointReader.read(batch(), migrated, new HashMapStateBackend());
        List<String> keys =
                after.readKeyedState(
                                SINK,
                                new NewClassesReader(),
                                TypeInformation.of(MerchantDayKey.class),
                                Types.STRING)
                        .executeAndCollect(10);
        List<String> lineage =
                after.readUnionState(SINK, SinkStateLayout.LINEAGE_STATE, Types.STRING)
                        .executeAndCollect(10);

        assertThat(keys)
                .containsExactlyInAnyOrder(
                        "m1/2026-11-28/EUR last 1200 in 3",
                        "m2/2026-11-28/EUR retired 900 in 2",
                        "m3/2026-11-28/EUR deleted");
        assertThat(lineage).containsExactlyInAnyOrder("0 run-a", "17 run-b");
        assertThat(SavepointCheck.run(restoring(migrated), new SerializerConfigImpl()))
                .as("the migrated state names the job's own classes")
                .isEmpty();
    }

    /** The sink's state as 0.2.x kept it: keyed and valued by {@code io.effonce.sink.store}. */
    private static void writeOldSinkState(String path) throws Exception {
        SinkStateEntry live = key("m1");
        live.hasLast = true;
        live.lastTotalMinor = 1_200;
        live.lastPayments = 3;
        SinkStateEntry retired = key("m2");
        retired.hasRetired = true;
        retired.retiredTotalMinor = 900;
        retired.retiredPayments = 2;
        SinkStateEntry deleted = key("m3");
        deleted.deleted = true;
        StreamExecutionEnvironment env = batch();
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), 128)
                .withOperator(
                        SINK,
                        OperatorTransformation.bootstrapWith(
                                        env.fromData(
                                                List.of(
                                                        live,
                                                        retired,
                                                        deleted,
                                                        SinkStateEntry.lineage("0 run-a"),
                                                        SinkStateEntry.lineage("17 run-b")),
                                                TypeInformation.of(SinkStateEntry.class)))
                                .keyBy(
                                        e ->
                                                new io.effonce.sink.store.MerchantDayKey(
                                                        e.merchantId,
                                                        LocalDate.ofEpochDay(e.day),
                                                        e.currency),
                                        TypeInformation.of(
                                                io.effonce.sink.store.MerchantDayKey.class))
                                .transform(
                                        (timestamp, savepoint) ->
                                                SimpleOperatorFactory.of(
                                                        new SinkStateBootstrap<>(
                                                                0L,
                                                                timestamp,
                                                                savepoint,
                                                                RETENTION,
                                                                TypeInformation.of(
                                                                        io.effonce.sink.store
                                                                                .DailyTotal.class),
                                                                io.effonce.sink.store.DailyTotal
                                                                        ::new))))
                .write(path);
        env.execute("the sink's state of 0.2.x");
    }

    private static SinkStateEntry key(String merchant) {
        SinkStateEntry e = new SinkStateEntry();
        e.merchantId = merchant;
        e.day = DAY.toEpochDay();
        e.currency = "EUR";
        return e;
    }

    private static StreamExecutionEnvironment batch() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(1);
        return env;
    }

    private static Configuration restoring(String savepoint) {
        Configuration config = new Configuration();
        config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        return config;
    }

    /** The sink's state as 0.3.0 registers it, one line per key. */
    private static final class NewClassesReader
            extends KeyedStateReaderFunction<MerchantDayKey, String> {

        private transient ValueState<DailyTotal> last;
        private transient ValueState<DailyTotal> retired;
        private transient ValueState<Boolean> deleted;

        @Override
        public void open(OpenContext context) {
            TypeInformation<DailyTotal> type = TypeInformation.of(DailyTotal.class);
            last = getRuntimeContext().getState(SinkStateLayout.lastValue(type));
            retired = getRuntimeContext().getState(SinkStateLayout.retiredValue(type, RETENTION));
            deleted = getRuntimeContext().getState(SinkStateLayout.deleted(RETENTION));
        }

        @Override
        public void readKey(MerchantDayKey key, Context ctx, Collector<String> out)
                throws Exception {
            if (last.value() != null) {
                out.collect(key + " last " + describe(last.value()));
            }
            if (retired.value() != null) {
                out.collect(key + " retired " + describe(retired.value()));
            }
            if (Boolean.TRUE.equals(deleted.value())) {
                out.collect(key + " deleted");
            }
        }

        private static String describe(DailyTotal total) {
            return total.totalMinor() + " in " + total.payments();
        }
    }
}
