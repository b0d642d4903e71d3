package io.effonce.sink.bench;

import io.effonce.sink.FlushableSink;
import io.effonce.sink.RestoreFlushPolicy;
import io.effonce.sink.SinkChange;
import io.effonce.sink.internal.FlushReport;
import io.effonce.sink.testutils.SinkHarnesses;
import io.effonce.sink.testutils.TestKey;
import io.effonce.sink.testutils.TestRows;
import io.effonce.sink.testutils.TestTotal;
import io.effonce.sink.testutils.TotalsTable;
import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.LocalServices;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * Measures the flushable sink against a real PostgreSQL: upserts per second at 10,000 distinct
 * keys, and the restore flush, full and incremental, for 100,000 and 1,000,000 keys in state with a
 * table ten times larger and 0.1 %, 1 % and 10 % of the keys changed since the restored checkpoint,
 * with the tag-index query plan. Not a test; run it by hand (see sink/README.md).
 *
 * <p>Arguments: {@code [upserts=2000000] [flushSizes=100000,1000000] [changed=0.001,0.01,0.1]}.
 */
public final class SinkBenchmark {

    private static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    private static final int BATCH = 1000;

    public static void main(String[] args) throws Exception {
        long upserts = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
        String[] flushSizes = (args.length > 1 ? args[1] : "100000,1000000").split(",");
        String[] fractions = (args.length > 2 ? args[2] : "0.001,0.01,0.1").split(",");
        double[] changed = new double[fractions.length];
        for (int i = 0; i < fractions.length; i++) {
            changed[i] = Double.parseDouble(fractions[i].trim());
        }
        EmbeddedPostgres embedded = null;
        PostgresEndpoint admin;
        var external = LocalServices.externalPostgres(System.getenv());
        if (external.isPresent()) {
            admin = external.get();
        } else {
            embedded = EmbeddedPostgres.start();
            admin = embedded.endpoint();
        }
        try {
            PostgresEndpoint db = LocalServices.newDatabase(admin, "effonce_bench");
            SchemaTool.applyAll(db);
            System.out.printf(
                    "settings: PostgreSQL %s, batch %d keys, parallelism 1, heap state, %s%n",
                    version(db), BATCH, external.isPresent() ? "external" : "embedded");
            if (upserts > 0) {
                upsertThroughput(db, upserts, false);
                upsertThroughput(db, upserts, true);
            }
            for (String n : flushSizes) {
                flushTime(db, Integer.parseInt(n.trim()), changed);
            }
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    /** Upserts over 10,000 keys: round-robin (every upsert a row) or skewed (coalescing). */
    private static void upsertThroughput(PostgresEndpoint db, long upserts, boolean skewed)
            throws Exception {
        new TotalsTable<>(db, TestRows.MAPPING).truncate();
        int keys = 10_000;
        TestKey[] keyOf = new TestKey[keys];
        for (int k = 0; k < keys; k++) {
            keyOf[k] = new TestKey("m" + k, DAY, "EUR");
        }
        SplittableRandom random = new SplittableRandom(7);
        try (var h = open(db, false)) {
            long start = System.nanoTime();
            long checkpoint = 0;
            for (long i = 0; i < upserts; i++) {
                int k = skewed ? skewedKey(random, keys) : (int) (i % keys);
                h.processElement(
                        new StreamRecord<>(SinkChange.upsert(keyOf[k], new TestTotal(i, i))));
                if (i % 100_000 == 99_999) {
                    SinkHarnesses.checkpoint(h, ++checkpoint);
                }
            }
            SinkHarnesses.checkpoint(h, ++checkpoint);
            double seconds = (System.nanoTime() - start) / 1e9;
            long rows = metric(db, "SELECT count(*) FROM merchant_daily_totals");
            System.out.printf(
                    "upserts, %s keys: %,d upserts in %.1f s = %,.0f upserts/s (%d distinct rows)%n",
                    skewed ? "skewed (half the upserts on 1% of the" : "round-robin over 10,000",
                    upserts,
                    seconds,
                    upserts / seconds,
                    rows);
        }
    }

    /** Half the upserts hit the hottest 1% of keys: a few big merchants, many small ones. */
    private static int skewedKey(SplittableRandom random, int keys) {
        return random.nextBoolean() ? random.nextInt(keys / 100) : random.nextInt(keys);
    }

    /** The restore flush of {@code stateKeys} in state, for each fraction changed since c. */
    private static void flushTime(PostgresEndpoint db, int stateKeys, double[] changedFractions)
            throws Exception {
        for (double changed : changedFractions) {
            for (boolean full : new boolean[] {true, false}) {
                flushTime(db, stateKeys, changed, full);
            }
        }
    }

    /**
     * A table ten times the state, checkpoint c completed (and committed) with {@code stateKeys} in
     * state, then an erased run that rewrote {@code changed} of them and wrote 1,000 keys the
     * restored state will not hold; then the restore from c, timed.
     */
    private static void flushTime(PostgresEndpoint db, int stateKeys, double changed, boolean full)
            throws Exception {
        TotalsTable<TestKey> table = new TotalsTable<>(db, TestRows.MAPPING);
        table.truncate();
        table.execute("DELETE FROM sink_progress");
        OperatorSubtaskState checkpoint;
        long c = 10;
        int rewritten = (int) Math.round(stateKeys * changed);
        try (var h = open(db, false)) {
            long filler = 9L * stateKeys;
            table.execute(
                    "INSERT INTO merchant_daily_totals (merchant_id, day, currency, total_minor,"
                            + " payments, barrier_tag, key_group)"
                            + " SELECT 'old' || g, DATE '2020-01-01' + (g % 2000)::int, 'EUR', g, 1, 1,"
                            + " (g % 128)::int FROM generate_series(1, "
                            + filler
                            + ") AS g");
            for (int k = 0; k < stateKeys; k++) {
                h.processElement(
                        new StreamRecord<>(
                                SinkChange.upsert(
                                        new TestKey("s" + k, DAY, "EUR"), new TestTotal(k, 1))));
            }
            checkpoint = SinkHarnesses.checkpoint(h, c);
            h.notifyOfCompletedCheckpoint(c);
            for (int k = 0; k < rewritten; k++) {
                h.processElement(
                        new StreamRecord<>(
                                SinkChange.upsert(
                                        new TestKey("s" + k, DAY, "EUR"), new TestTotal(-1, 2))));
            }
            for (int k = 0; k < 1000; k++) {
                h.processElement(
                        new StreamRecord<>(
                                SinkChange.upsert(
                                        new TestKey("stale" + k, DAY, "EUR"),
                                        new TestTotal(k, 1))));
            }
            h.prepareSnapshotPreBarrier(c + 1);
        }
        table.execute("VACUUM ANALYZE merchant_daily_totals");
        long rows = metric(db, "SELECT count(*) FROM merchant_daily_totals");
        if (full && changed == 0.01) {
            System.out.printf(
                    "flush, %,d keys in state, %,d rows in the table:%n", stateKeys, rows);
            printPlan(db, c);
        }

        var h = SinkHarnesses.harness(sink(db, full), TypeInformation.of(TestKey.class), 1, 0);
        h.setCheckpointStorage(new JobManagerCheckpointStorage(Integer.MAX_VALUE));
        h.setRestoredCheckpointId(c);
        h.initializeState(checkpoint);
        long start = System.nanoTime();
        h.open(); // runs the restore flush
        double seconds = (System.nanoTime() - start) / 1e9;
        FlushReport report = SinkHarnesses.lastFlush(h);
        h.close();
        long stale =
                metric(
                        db,
                        "SELECT count(*) FROM merchant_daily_totals WHERE merchant_id LIKE 'stale%'");
        long wrong =
                metric(db, "SELECT count(*) FROM merchant_daily_totals WHERE total_minor = -1");
        System.out.printf(
                "  %,d keys in state, %.1f %% changed since c: %s flush %.3f s (%,d keys set,"
                        + " %,d deleted); stale rows left %d, wrong rows left %d%n",
                stateKeys,
                changed * 100,
                report.mode(),
                seconds,
                report.keysSet(),
                report.keysDeleted(),
                stale,
                wrong);
    }

    private static void printPlan(PostgresEndpoint db, long c) throws Exception {
        try (Connection conn = db.connect();
                Statement s = conn.createStatement();
                ResultSet rs =
                        s.executeQuery(
                                "EXPLAIN (ANALYZE, BUFFERS) SELECT merchant_id, day, currency"
                                        + " FROM merchant_daily_totals WHERE barrier_tag >= "
                                        + c
                                        + " AND key_group BETWEEN 0 AND 127")) {
            while (rs.next()) {
                System.out.println("    " + rs.getString(1));
            }
        }
    }

    private static FlushableSink<TestKey, TestTotal> sink(PostgresEndpoint db, boolean alwaysFull) {
        FlushableSink.Builder<TestKey, TestTotal> builder =
                FlushableSink.<TestKey, TestTotal>builder()
                        .store(TestRows.store(db))
                        .valueType(TypeInformation.of(TestTotal.class))
                        .batchSize(BATCH);
        return (alwaysFull ? builder.restoreFlush(RestoreFlushPolicy.FULL) : builder).build();
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    TestKey, SinkChange<TestKey, TestTotal>, Void>
            open(PostgresEndpoint db, boolean alwaysFull) throws Exception {
        var h =
                SinkHarnesses.harness(
                        sink(db, alwaysFull), TypeInformation.of(TestKey.class), 1, 0);
        // Snapshots of a million keys exceed the in-memory storage's default 5 MB limit.
        h.setCheckpointStorage(new JobManagerCheckpointStorage(Integer.MAX_VALUE));
        h.open();
        return h;
    }

    private static long metric(PostgresEndpoint db, String sql) throws Exception {
        try (Connection conn = db.connect();
                Statement s = conn.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String version(PostgresEndpoint db) throws Exception {
        try (Connection conn = db.connect();
                Statement s = conn.createStatement();
                ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
