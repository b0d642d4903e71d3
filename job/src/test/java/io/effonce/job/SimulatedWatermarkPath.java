package io.effonce.job;

import io.effonce.dedup.LateCopy;
import io.effonce.job.decode.ChangeDecoder;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.LedgerRecord;
import io.effonce.job.decode.PaymentChange;
import io.effonce.job.migrate.EventTimeDedup;
import io.effonce.sink.SinkChange;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.apache.flink.util.clock.ManualClock;

/**
 * The job's event-time path in one thread, with its real parts: the decoder with its clock bound,
 * one {@link LedgerWatermarks} per partition, Flink's rule for combining them (the minimum over the
 * partitions that are not idle, never going back), the dedup operator and the daily totals in
 * Flink's operator harnesses. A checkpoint snapshots both operators, the partitions' offsets and
 * the sink table; a crash restores all of them from the last checkpoint (or from nothing) with new
 * watermark generators, as Flink does, and replays the partitions from the restored offsets. In the
 * {@link Model#MERCHANT MERCHANT} model one merchant-keyed operator, finishing a bundle every
 * {@value #BUNDLE} records, replaces dedup and daily totals.
 */
final class SimulatedWatermarkPath implements AutoCloseable {

    static final Duration TOLERANCE = Duration.ofMinutes(5);
    static final Duration OUT_OF_ORDERNESS = Duration.ofSeconds(5);
    static final Duration HORIZON = Duration.ofHours(2);
    static final Duration IDLENESS = Duration.ofSeconds(1);
    static final int BUNDLE = 3;

    /**
     * What counts: the job's merchant stage, or the reference it must equal: the dedup module's
     * operator keyed by event id, then {@link DailyTotals} (the layout the merchant stage
     * replaced).
     */
    enum Model {
        REFERENCE,
        MERCHANT
    }

    /** One Kafka record: its broker timestamp and value. */
    record KafkaRecord(long timestamp, String value) {}

    private static final OutputTag<DeadLetter> DEAD =
            new OutputTag<>("dead", TypeInformation.of(DeadLetter.class));
    private static final TypeInformation<PaymentChange> CHANGE =
            TypeInformation.of(PaymentChange.class);

    private final Model layout;
    private final ChangeDecoder decoder;
    private final EventTimeDedup<PaymentChange> dedup =
            EventTimeDedup.<PaymentChange>builder().horizon(HORIZON).build();
    private final List<List<KafkaRecord>> partitions = new ArrayList<>();
    private final ManualClock clock = new ManualClock();

    /** What outlives a crash: side tables are idempotent, written outside the checkpoints. */
    final Map<String, String> deadLetters = new HashMap<>();

    final Set<String> lateIds = new HashSet<>();

    /** Late judgements made before the last checkpoint, and since: a crash erases the latter. */
    private final Set<String> lateCheckpointed = new HashSet<>();

    private final Set<String> lateSinceCheckpoint = new HashSet<>();
    int restores;
    int idleMarks;
    long maxRecordTimestamp = Long.MIN_VALUE;
    long highestWatermark = Long.MIN_VALUE;

    private Map<MerchantDayKey, Long> table = new HashMap<>();
    private int[] offsets;
    private Checkpoint last;
    private KeyedOneInputStreamOperatorTestHarness<String, PaymentChange, PaymentChange> dedupOp;
    private KeyedOneInputStreamOperatorTestHarness<
                    MerchantDayKey, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
            totalsOp;
    private KeyedOneInputStreamOperatorTestHarness<
                    String, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
            merchantOp;
    private Partition[] generators;
    private long combined;
    private long checkpointId;

    private record Checkpoint(
            OperatorSubtaskState dedup,
            OperatorSubtaskState totals,
            int[] offsets,
            Map<MerchantDayKey, Long> table) {}

    SimulatedWatermarkPath(int partitionCount) throws Exception {
        this(partitionCount, TOLERANCE, Model.REFERENCE);
    }

    /** With another tolerance: a huge one switches the bound off (the counterfactual). */
    SimulatedWatermarkPath(int partitionCount, Duration tolerance) throws Exception {
        this(partitionCount, tolerance, Model.REFERENCE);
    }

    SimulatedWatermarkPath(int partitionCount, Duration tolerance, Model layout) throws Exception {
        this.layout = layout;
        decoder = new ChangeDecoder(ZoneOffset.UTC, 256, tolerance);
        for (int p = 0; p < partitionCount; p++) {
            partitions.add(new ArrayList<>());
        }
        start(null);
    }

    /** Appends a record to a partition's log; read by {@link #readAll}. */
    void publish(int partition, KafkaRecord record) {
        partitions.get(partition).add(record);
    }

    /** Reads every record published to {@code partition} and not read yet. */
    void readAll(int partition) throws Exception {
        while (offsets[partition] < partitions.get(partition).size()) {
            read(partition);
        }
    }

    void checkpoint() throws Exception {
        checkpointId++;
        try {
            snapshot();
        } finally {
            lateCheckpointed.addAll(lateSinceCheckpoint);
            lateSinceCheckpoint.clear();
        }
    }

    private void snapshot() throws Exception {
        if (layout == Model.MERCHANT) {
            merchantOp.prepareSnapshotPreBarrier(checkpointId);
            drainMerchant();
            last =
                    new Checkpoint(
                            merchantOp.snapshot(checkpointId, checkpointId),
                            null,
                            offsets.clone(),
                            new HashMap<>(table));
            return;
        }
        last =
                new Checkpoint(
                        dedupOp.snapshot(checkpointId, checkpointId),
                        totalsOp.snapshot(checkpointId, checkpointId),
                        offsets.clone(),
                        new HashMap<>(table));
    }

    /** Lets every bundle's time run out, so nothing read waits in one. */
    void settle() throws Exception {
        if (layout == Model.MERCHANT) {
            merchantOp.setProcessingTime(merchantOp.getProcessingTime() + 1_000);
            drainMerchant();
        }
    }

    /** Loses everything since the last checkpoint and restores from it. */
    void crash() throws Exception {
        restores++;
        lateSinceCheckpoint.clear();
        close();
        start(last);
    }

    /**
     * The late judgements of the history that survived: those of an attempt a crash erased are in
     * {@link #lateIds} (the side table keeps them) but not here, since the restored attempt judges
     * the same changes again, possibly at another watermark.
     */
    Set<String> survivingLateIds() {
        Set<String> surviving = new HashSet<>(lateCheckpointed);
        surviving.addAll(lateSinceCheckpoint);
        return surviving;
    }

    /** The sink table: each key's last total (a retired day keeps its row). */
    Map<MerchantDayKey, Long> table() {
        return table;
    }

    private void start(Checkpoint from) throws Exception {
        generators = new Partition[partitions.size()];
        for (int p = 0; p < generators.length; p++) {
            generators[p] = new Partition();
        }
        combined = Long.MIN_VALUE;
        offsets = from == null ? new int[partitions.size()] : from.offsets().clone();
        table = from == null ? new HashMap<>() : new HashMap<>(from.table());
        if (layout == Model.MERCHANT) {
            merchantOp =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new MerchantTotalsOperator(
                                    new DayFinality(ZoneOffset.UTC, HORIZON),
                                    dedup.lateness(),
                                    BUNDLE,
                                    5,
                                    LateCopy.tag(CHANGE),
                                    DEAD,
                                    false),
                            PaymentChange::merchantId,
                            Types.STRING);
            merchantOp.setup();
            if (from == null) {
                merchantOp.initializeEmptyState();
            } else {
                merchantOp.initializeState(from.dedup());
            }
            merchantOp.open();
            return;
        }
        dedupOp =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        dedup.<String>createOperator(CHANGE), PaymentChange::eventId, Types.STRING);
        totalsOp =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        DailyTotalsAccess.operator(ZoneOffset.UTC, HORIZON.toMillis(), DEAD),
                        PaymentChange::dayKey,
                        TypeInformation.of(MerchantDayKey.class));
        dedupOp.setup();
        totalsOp.setup();
        if (from == null) {
            dedupOp.initializeEmptyState();
            totalsOp.initializeEmptyState();
        } else {
            dedupOp.initializeState(from.dedup());
            totalsOp.initializeState(from.totals());
        }
        dedupOp.open();
        totalsOp.open();
    }

    private void read(int partition) throws Exception {
        KafkaRecord record = partitions.get(partition).get(offsets[partition]);
        long offset = offsets[partition]++;
        clock.advanceTime(Duration.ofMillis(250));
        maxRecordTimestamp = Math.max(maxRecordTimestamp, record.timestamp());
        LedgerRecord decoded =
                decoder.decode(
                        "t",
                        partition,
                        offset,
                        record.timestamp(),
                        record.value().getBytes(StandardCharsets.UTF_8));
        Partition out = generators[partition];
        out.generator.onEvent(decoded, decoded.eventTime(), out);
        if (decoded.deadLetter() != null) {
            deadLetters.put(partition + "/" + offset, decoded.deadLetter().reason());
        } else if (decoded.change() != null && decoded.change().state().equals("SUCCEEDED")) {
            if (layout == Model.MERCHANT) {
                merchantOp.processElement(decoded.change(), decoded.eventTime());
                drainMerchant();
            } else {
                dedupOp.processElement(decoded.change(), decoded.eventTime());
                forward();
            }
        }
        // Flink emits periodically on every partition: idle ones go idle as the clock moves.
        for (Partition p : generators) {
            p.generator.onPeriodicEmit(p);
        }
        advanceCombinedWatermark();
    }

    /** The minimum over the partitions that are not idle; it never goes back. */
    private void advanceCombinedWatermark() throws Exception {
        long min = Long.MAX_VALUE;
        boolean anyActive = false;
        for (Partition p : generators) {
            if (!p.idle) {
                anyActive = true;
                min = Math.min(min, p.watermark);
            }
        }
        if (anyActive && min > combined) {
            combined = min;
            highestWatermark = Math.max(highestWatermark, combined);
            if (layout == Model.MERCHANT) {
                merchantOp.processWatermark(combined);
                drainMerchant();
                return;
            }
            dedupOp.processWatermark(combined);
            forward();
            totalsOp.processWatermark(combined);
            drainTotals();
        }
    }

    @SuppressWarnings("unchecked")
    private void forward() throws Exception {
        Object o;
        while ((o = dedupOp.getOutput().poll()) != null) {
            if (o instanceof StreamRecord<?> r) {
                totalsOp.processElement((StreamRecord<PaymentChange>) r);
            }
        }
        var late = dedupOp.getSideOutput(LateCopy.tag(CHANGE));
        if (late != null) {
            StreamRecord<LateCopy<PaymentChange>> r;
            while ((r = late.poll()) != null) {
                lateIds.add(r.getValue().record().eventId());
                lateSinceCheckpoint.add(r.getValue().record().eventId());
            }
        }
        drainTotals();
    }

    private void drainTotals() {
        drainSink(totalsOp);
    }

    private void drainMerchant() {
        drainSink(merchantOp);
        var late = merchantOp.getSideOutput(LateCopy.tag(CHANGE));
        if (late != null) {
            StreamRecord<LateCopy<PaymentChange>> r;
            while ((r = late.poll()) != null) {
                lateIds.add(r.getValue().record().eventId());
                lateSinceCheckpoint.add(r.getValue().record().eventId());
            }
        }
    }

    /** Into the table: each upsert's total (a retired day keeps its row); dead letters aside. */
    @SuppressWarnings("unchecked")
    private void drainSink(
            KeyedOneInputStreamOperatorTestHarness<
                            ?, PaymentChange, SinkChange<MerchantDayKey, DailyTotal>>
                    op) {
        Object o;
        while ((o = op.getOutput().poll()) != null) {
            if (o instanceof StreamRecord<?> r
                    && r.getValue() instanceof SinkChange<?, ?> change
                    && change.value() != null) {
                var c = (SinkChange<MerchantDayKey, DailyTotal>) change;
                table.put(c.key(), c.value().totalMinor());
            }
        }
        var dead = op.getSideOutput(DEAD);
        if (dead != null) {
            StreamRecord<DeadLetter> r;
            while ((r = dead.poll()) != null) {
                deadLetters.put(
                        r.getValue().partition() + "/" + r.getValue().offset(),
                        r.getValue().reason());
            }
        }
    }

    @Override
    public void close() throws Exception {
        if (layout == Model.MERCHANT) {
            merchantOp.close();
            return;
        }
        dedupOp.close();
        totalsOp.close();
    }

    /** One partition's watermark generator and what it last emitted. */
    private final class Partition implements WatermarkOutput {
        final LedgerWatermarks generator =
                new LedgerWatermarks(OUT_OF_ORDERNESS, true, IDLENESS, IDLENESS, clock);
        long watermark = Long.MIN_VALUE;
        boolean idle;

        @Override
        public void emitWatermark(Watermark mark) {
            watermark = Math.max(watermark, mark.getTimestamp());
            idle = false;
        }

        @Override
        public void markIdle() {
            if (!idle) {
                idleMarks++;
            }
            idle = true;
        }

        @Override
        public void markActive() {
            idle = false;
        }
    }
}
