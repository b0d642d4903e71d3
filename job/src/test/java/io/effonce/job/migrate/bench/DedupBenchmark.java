package io.effonce.job.migrate.bench;

import io.effonce.job.migrate.Change;
import io.effonce.job.migrate.EventTimeDedup;
import io.effonce.job.migrate.EventTimeDedupOperator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The dedup operator alone on RocksDB, through Flink's operator test harness: copies per second on
 * the calling thread and bytes of state per remembered ID. Not a test; run it by hand (see the
 * module README), preferably pinned to one core with {@code taskset -c 0}.
 *
 * <p>Arguments (all optional): number of IDs (1,000,000), duplicate share of IDs (0.10), RocksDB
 * memory per slot (256mb), ID style ({@code sequential} or {@code random}; sequential IDs compress
 * better in RocksDB's SST files).
 */
public final class DedupBenchmark {

    private static final long T0 = 1_700_000_000_000L;
    private static final int WATERMARK_EVERY = 1_000;
    private static final long OUT_OF_ORDERNESS_MS = 5_000;

    public static void main(String[] args) throws Exception {
        int ids = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        double duplicateShare = args.length > 1 ? Double.parseDouble(args[1]) : 0.10;
        String slotMemory = args.length > 2 ? args[2] : "256mb";
        boolean randomIds = args.length > 3 && "random".equals(args[3]);

        System.out.printf(
                "settings: ids=%,d (%s) duplicateShare=%.2f horizon=2h rocksdbMemoryPerSlot=%s"
                        + " incrementalCheckpoints=true timers=RocksDB watermarkEvery=%,d copies"
                        + " availableProcessors=%d%n",
                ids,
                randomIds ? "random pay_<16 hex>:SUCCEEDED" : "sequential pay_<8 digits>:SUCCEEDED",
                duplicateShare,
                slotMemory,
                WATERMARK_EVERY,
                Runtime.getRuntime().availableProcessors());

        Workload warmup = Workload.generate(Math.max(1, ids / 5), duplicateShare, randomIds, 1);
        run("warm-up", warmup, slotMemory, false);
        Workload workload = Workload.generate(ids, duplicateShare, randomIds, 42);
        run("measured", workload, slotMemory, true);
    }

    private static void run(String label, Workload w, String slotMemory, boolean measureState)
            throws Exception {
        Path dir = Files.createTempDirectory("effonce-dedup-bench");
        try {
            EmbeddedRocksDBStateBackend backend = new EmbeddedRocksDBStateBackend(true);
            backend.getMemoryConfiguration().setFixedMemoryPerSlot(slotMemory);
            backend.setDbStoragePath(dir.resolve("db").toString());

            TypeInformation<Change> type = TypeInformation.of(Change.class);
            EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
            EventTimeDedupOperator<String, Change> operator = dedup.createOperator(type);
            try (var harness =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            operator, Change::eventId, Types.STRING, 128, 1, 0)) {
                harness.setStateBackend(backend);
                harness.setCheckpointStorage(
                        new FileSystemCheckpointStorage(dir.resolve("chk").toUri()));
                harness.setup();
                harness.initializeEmptyState();
                harness.open();

                long maxEventTime = Long.MIN_VALUE;
                long passed = 0;
                long start = System.nanoTime();
                for (int i = 0; i < w.size(); i++) {
                    harness.processElement(w.changes[i], w.times[i]);
                    maxEventTime = Math.max(maxEventTime, w.times[i]);
                    if ((i + 1) % WATERMARK_EVERY == 0) {
                        harness.processWatermark(maxEventTime - OUT_OF_ORDERNESS_MS);
                        passed += countRecords(harness);
                    }
                }
                long elapsed = System.nanoTime() - start;
                passed += countRecords(harness);

                double seconds = elapsed / 1e9;
                System.out.printf(
                        "%s: copies=%,d in %.2f s = %,.0f copies/s; passed=%,d"
                                + " duplicatesDropped=%,d remembered timers=%,d%n",
                        label,
                        w.size(),
                        seconds,
                        w.size() / seconds,
                        passed,
                        w.size() - passed,
                        harness.numEventTimeTimers());
                if (!measureState) {
                    return;
                }

                OperatorSubtaskState checkpoint = harness.snapshot(1L, 2L);
                long incremental = checkpoint.getStateSize();
                OperatorSubtaskState savepoint =
                        harness.snapshotWithLocalState(
                                        2L,
                                        3L,
                                        SavepointType.savepoint(SavepointFormatType.CANONICAL))
                                .getJobManagerOwnedState();
                long canonical = savepoint.getStateSize();

                RocksDBKeyedStateBackend<?> rocks =
                        (RocksDBKeyedStateBackend<?>) operator.getKeyedStateBackend();
                rocks.compactState(
                        new ValueStateDescriptor<>(
                                EventTimeDedupOperator.SEEN_STATE_NAME,
                                BooleanSerializer.INSTANCE));
                long sstBytes = sizeOf(dir.resolve("db"), ".sst");

                System.out.printf(
                        "state for %,d remembered IDs (seen flag + expiry timer each):%n"
                                + "  incremental checkpoint (RocksDB SST files): %,d bytes ="
                                + " %.1f bytes/ID%n"
                                + "  canonical savepoint (full, uncompressed):   %,d bytes ="
                                + " %.1f bytes/ID%n"
                                + "  local RocksDB SST files after compacting the seen-IDs: %,d"
                                + " bytes = %.1f bytes/ID%n",
                        w.ids,
                        incremental,
                        (double) incremental / w.ids,
                        canonical,
                        (double) canonical / w.ids,
                        sstBytes,
                        (double) sstBytes / w.ids);
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    private static long countRecords(KeyedOneInputStreamOperatorTestHarness<?, ?, ?> harness) {
        long records = harness.getOutput().stream().filter(StreamRecord.class::isInstance).count();
        harness.getOutput().clear();
        return records;
    }

    private static long sizeOf(Path root, String suffix) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(suffix))
                    .mapToLong(
                            p -> {
                                try {
                                    return Files.size(p);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            })
                    .sum();
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * {@code ids} distinct IDs {@code pay_<n>:SUCCEEDED} (n sequential or 16 random hex digits),
     * one per millisecond of event time, plus a duplicate for {@code duplicateShare} of them,
     * re-delivered up to 10,000 copies later.
     */
    private record Workload(Change[] changes, long[] times, int ids) {
        static Workload generate(int ids, double duplicateShare, boolean randomIds, long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            int duplicates = (int) Math.round(ids * duplicateShare);
            Change[] changes = new Change[ids + duplicates];
            long[] times = new long[ids + duplicates];
            int n = 0;
            int duplicatesLeft = duplicates;
            for (int i = 0; i < ids; i++) {
                String paymentId =
                        randomIds
                                ? String.format("%016x", random.nextLong())
                                : String.valueOf(10_000_000 + i);
                changes[n] = new Change("pay_" + paymentId + ":SUCCEEDED", "m" + (i % 1000), 100);
                times[n] = T0 + i;
                n++;
                int remaining = ids - i;
                if (duplicatesLeft > 0 && random.nextInt(remaining) < duplicatesLeft) {
                    int original = Math.max(0, n - 1 - random.nextInt(10_000));
                    changes[n] = changes[original];
                    times[n] = times[original];
                    n++;
                    duplicatesLeft--;
                }
            }
            return new Workload(changes, times, ids);
        }

        int size() {
            return changes.length;
        }
    }
}
