package io.effonce.job.upgrade;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.SinkChange;
import io.effonce.sink.store.DailyTotal;
import io.effonce.sink.store.MerchantDayKey;
import io.effonce.sink.testutils.InMemorySinkStore;
import io.effonce.sink.testutils.InMemoryTable;
import io.effonce.sink.testutils.SinkHarnesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;

/**
 * The flushable sink's state fixture of a release (see job/README.md, "Upgrades"): the last value
 * of two live keys, one retired key, snapshotted at checkpoint {@link #CHECKPOINT}. Keyed and
 * valued by the classes of that release, whose names its snapshot gives (the sink itself is generic
 * in both).
 */
public final class SinkStateFixtures {

    public static final String RELEASE = "0.1.0";
    static final long CHECKPOINT = 7;
    static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    static final MerchantDayKey M1 = new MerchantDayKey("m1", DAY, "EUR");
    static final MerchantDayKey M2 = new MerchantDayKey("m2", DAY, "USD");
    static final MerchantDayKey RETIRED = new MerchantDayKey("m3", DAY.minusDays(1), "EUR");

    private SinkStateFixtures() {}

    /** Writes this release's fixture into {@code args[0]} (a directory). */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]).resolve(RELEASE);
        Files.createDirectories(dir);
        OperatorSnapshotUtil.writeStateHandle(
                sinkState(), dir.resolve("flushable-sink.snapshot").toString());
        System.out.println("Wrote the sink fixture of " + RELEASE + " to " + dir.toAbsolutePath());
    }

    static OperatorSubtaskState sinkState() throws Exception {
        try (var h = harness(new InMemoryTable<>())) {
            h.open();
            upsert(h, M1, new DailyTotal(12_000, 4));
            upsert(h, M2, new DailyTotal(500, 1));
            upsert(h, RETIRED, new DailyTotal(900, 3));
            h.processElement(new StreamRecord<>(SinkChange.retire(RETIRED)));
            return SinkHarnesses.checkpoint(h, CHECKPOINT);
        }
    }

    static KeyedOneInputStreamOperatorTestHarness<
                    MerchantDayKey, SinkChange<MerchantDayKey, DailyTotal>, Void>
            harness(InMemoryTable<MerchantDayKey, DailyTotal> table) throws Exception {
        FlushableSink<MerchantDayKey, DailyTotal> sink =
                FlushableSink.<MerchantDayKey, DailyTotal>builder()
                        .store(InMemorySinkStore.factory(table))
                        .valueType(TypeInformation.of(DailyTotal.class))
                        .build();
        return SinkHarnesses.harness(sink, TypeInformation.of(MerchantDayKey.class), 1, 0);
    }

    private static void upsert(
            KeyedOneInputStreamOperatorTestHarness<
                            MerchantDayKey, SinkChange<MerchantDayKey, DailyTotal>, Void>
                    h,
            MerchantDayKey key,
            DailyTotal value)
            throws Exception {
        h.processElement(new StreamRecord<>(SinkChange.upsert(key, value)));
    }
}
