package io.effonce.job;

import io.effonce.dedup.LateCopy;
import io.effonce.dedup.Lateness;
import io.effonce.dedup.RecordedSetting;
import io.effonce.dedup.WatermarkFloor;
import io.effonce.job.decode.DeadLetter;
import io.effonce.job.decode.PaymentChange;
import io.effonce.sink.SinkChange;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's counting stage: dedup and daily totals in one stage keyed by merchant, each merchant's
 * state touched once per bundle of records. The rules ({@link Lateness}) apply record by record:
 *
 * <ul>
 *   <li>a change with {@code eventTime + horizon <= max(floor, watermark)} is late (side output, no
 *       state touched); otherwise the first change of an event id counts and every later one is
 *       dropped;
 *   <li>an event id is one event whatever day its copies carry: a change whose id the merchant
 *       remembers on any open day is a duplicate (a row whose {@code updated_at} was rewritten
 *       without a change of state, across midnight too). An accepted id is kept on its change's day
 *       (its date in the zone) until that day is final ({@link DayFinality#finalAt}: end of day +
 *       horizon), never before the id's own {@code eventTime + horizon}; one event-time timer per
 *       merchant-day then retires its totals and forgets its ids;
 *   <li>a sum that would overflow is a dead letter.
 * </ul>
 *
 * <p>A bundle is finished — its records judged, in arrival order per merchant, against the
 * watermark of their arrival — when it holds {@code bundleSize} records, {@code bundleDelayMillis}
 * after its first record, before every watermark, before every checkpoint barrier and at the end.
 * Event ids are only compared within a merchant: a change that claims another merchant for the same
 * payment and state would count again (the ledger never moves a payment between merchants).
 *
 * <p>State (names fixed for savepoints): the keyed map states and timers of {@link MerchantState};
 * the watermark floor and the recorded horizon and zone as union list states.
 */
final class MerchantTotalsOperator
        extends MerchantStateOperator<SinkChange<MerchantDayKey, DailyTotal>>
        implements OneInputStreamOperator<PaymentChange, SinkChange<MerchantDayKey, DailyTotal>> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(MerchantTotalsOperator.class);

    private final DayFinality finality;
    private final Lateness lateness;
    private final int bundleSize;
    private final long bundleDelayMillis;
    private final OutputTag<LateCopy<PaymentChange>> lateTag;
    private final OutputTag<DeadLetter> deadLetters;
    private final RecordedSetting recordedHorizon;
    private final RecordedSetting recordedZone;
    private final boolean emptyStateAllowed;

    private transient WatermarkFloor floor;
    private transient Map<String, List<StreamRecord<PaymentChange>>> bundle;
    private transient int bundled;
    private transient boolean finishScheduled;
    private transient Counter passed;
    private transient Counter duplicatesDropped;
    private transient Counter lateRejected;
    private transient Counter overflows;
    private transient Counter bundles;

    MerchantTotalsOperator(
            DayFinality finality,
            Lateness lateness,
            int bundleSize,
            long bundleDelayMillis,
            OutputTag<LateCopy<PaymentChange>> lateTag,
            OutputTag<DeadLetter> deadLetters,
            boolean emptyStateAllowed) {
        if (!finality.horizon().equals(lateness.horizon())) {
            throw new IllegalArgumentException(
                    "a day is final one horizon after its end: the finality's horizon "
                            + finality.horizon()
                            + " must be the lateness horizon "
                            + lateness.horizon());
        }
        this.finality = finality;
        this.lateness = lateness;
        this.bundleSize = bundleSize;
        this.bundleDelayMillis = bundleDelayMillis;
        this.lateTag = lateTag;
        this.deadLetters = deadLetters;
        this.recordedHorizon = lateness.recordedHorizon();
        this.recordedZone = finality.recordedZone();
        this.emptyStateAllowed = emptyStateAllowed;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        floor = new WatermarkFloor();
        floor.initialize(context.getOperatorStateStore(), lateness.watermarkFloor());
        boolean restored = context.isRestored() && stateWasRestored(context);
        recordedHorizon.check(context.getOperatorStateStore(), restored);
        recordedZone.check(context.getOperatorStateStore(), restored);
    }

    /**
     * Whether the restored checkpoint held this stage's state. The stage records its settings from
     * its first start, so a restore without them had no state for its uid: a savepoint of the
     * two-stage layout (0.1.0, or 0.2.x run with that layout) restored with {@code
     * --allowNonRestoredState}. Its totals would start from zero and overwrite the open days'
     * totals in the sink with partial ones, so that is refused unless {@link
     * JobOptions#ALLOW_EMPTY_MERCHANT_STAGE} asks for it.
     */
    private boolean stateWasRestored(StateInitializationContext context) throws Exception {
        if (recordedHorizon.isRecordedIn(context.getOperatorStateStore())) {
            return true;
        }
        if (!emptyStateAllowed) {
            throw new IllegalStateException(
                    "The checkpoint or savepoint this job restored (id "
                            + context.getRestoredCheckpointId().orElse(-1L)
                            + ") holds no state of the merchant stage (uid "
                            + LedgerPipeline.MERCHANT_TOTALS_UID
                            + "): it was taken by another layout and restored with"
                            + " --allowNonRestoredState. The stage would count open days from"
                            + " zero and overwrite their totals with partial ones. Restore a"
                            + " savepoint of the merchant layout, migrate this one once"
                            + " (MigrateSavepoint, job/README.md \"Upgrades\"), or set "
                            + JobOptions.ALLOW_EMPTY_MERCHANT_STAGE.key()
                            + "=true to start the stage empty on purpose.");
        }
        LOG.warn(
                "The restored checkpoint holds no state of the merchant stage; it starts empty, as"
                        + " {}=true asks",
                JobOptions.ALLOW_EMPTY_MERCHANT_STAGE.key());
        return false;
    }

    @Override
    public void open() throws Exception {
        super.open();
        openMerchantState(lateness.stateTtl());
        bundle = new HashMap<>();
        var metrics = getMetricGroup();
        passed = metrics.counter("passed");
        duplicatesDropped = metrics.counter("duplicatesDropped");
        lateRejected = metrics.counter("lateRejected");
        overflows = metrics.counter("totalOverflows");
        bundles = metrics.counter("bundles");
        metrics.gauge("watermarkFloor", () -> floor.value());
    }

    @Override
    public void processElement(StreamRecord<PaymentChange> element) throws Exception {
        if (!element.hasTimestamp()) {
            throw new IllegalStateException(
                    "The merchant stage needs event time: the record has no timestamp.");
        }
        bundle.computeIfAbsent(element.getValue().merchantId(), m -> new ArrayList<>())
                .add(element);
        if (++bundled >= bundleSize) {
            finishBundle();
        } else if (!finishScheduled) {
            finishScheduled = true;
            long now = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService()
                    .registerTimer(
                            now + bundleDelayMillis,
                            t -> {
                                finishScheduled = false;
                                finishBundle();
                            });
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        // Records before a watermark are judged against the watermark they arrived under.
        finishBundle();
        if (!floor.advanceInEventTime(mark.getTimestamp())) {
            // End of input: open days stay open, ids stay remembered.
            output.emitWatermark(mark);
            return;
        }
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        finishBundle();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        floor.snapshot();
    }

    @Override
    public void finish() throws Exception {
        finishBundle();
        super.finish();
    }

    /** Judges and counts every record of the bundle, merchant by merchant. */
    void finishBundle() throws Exception {
        if (bundled == 0) {
            return;
        }
        long watermark = timers.currentWatermark();
        long bound = lateness.bound(floor.value(), watermark);
        for (Map.Entry<String, List<StreamRecord<PaymentChange>>> e : bundle.entrySet()) {
            setCurrentKey(e.getKey());
            count(e.getValue(), watermark, bound);
        }
        bundle.clear();
        bundled = 0;
        bundles.inc();
    }

    /** One merchant's records: each total read once and written once. */
    private void count(List<StreamRecord<PaymentChange>> records, long watermark, long bound)
            throws Exception {
        Map<MerchantDayKey, DailyTotal> changed = new LinkedHashMap<>();
        List<Long> open = openDaysOfKey();
        for (StreamRecord<PaymentChange> record : records) {
            PaymentChange change = record.getValue();
            long eventTime = record.getTimestamp();
            if (lateness.isLate(eventTime, bound)) {
                lateRejected.inc();
                output.collect(
                        lateTag,
                        new StreamRecord<>(
                                new LateCopy<>(change, eventTime, watermark, floor.value()),
                                eventTime));
                continue;
            }
            long day = change.day().toEpochDay();
            if (remembered(change.eventId(), day, open)) {
                duplicatesDropped.inc();
                continue;
            }
            if (!open.contains(day)) {
                openDay(day, finality.finalAt(change.day()));
                open.add(day);
            }
            seen.setCurrentNamespace(day);
            seen.put(change.eventId(), Boolean.TRUE);
            passed.inc();
            MerchantDayKey key = change.dayKey();
            DailyTotal before = changed.get(key);
            if (before == null) {
                totals.setCurrentNamespace(day);
                before = totals.get(change.currency());
            }
            DailyTotal after = TotalAddition.added(before, change);
            if (after == null) {
                overflows.inc();
                output.collect(
                        deadLetters, new StreamRecord<>(TotalAddition.overflow(change, before)));
                continue;
            }
            changed.put(key, after);
        }
        for (Map.Entry<MerchantDayKey, DailyTotal> e : changed.entrySet()) {
            totals.setCurrentNamespace(e.getKey().day().toEpochDay());
            totals.put(e.getKey().currency(), e.getValue());
            output.collect(new StreamRecord<>(SinkChange.upsert(e.getKey(), e.getValue())));
        }
    }

    /**
     * Whether the current merchant remembers {@code eventId} on its change's own day or on another
     * open day. The own day first: most copies carry it (and it is read even if not indexed).
     */
    private boolean remembered(String eventId, long ownDay, List<Long> open) throws Exception {
        seen.setCurrentNamespace(ownDay);
        if (seen.contains(eventId)) {
            return true;
        }
        for (long day : open) {
            if (day != ownDay) {
                seen.setCurrentNamespace(day);
                if (seen.contains(eventId)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The merchant-day is final: its totals retire, its ids are forgotten. */
    @Override
    public void onEventTime(InternalTimer<String, Long> timer) throws Exception {
        long day = timer.getNamespace();
        LocalDate date = LocalDate.ofEpochDay(day);
        totals.setCurrentNamespace(day);
        List<String> currencies = new ArrayList<>();
        for (String currency : totals.keys()) {
            currencies.add(currency);
        }
        for (String currency : currencies) {
            output.collect(
                    new StreamRecord<>(
                            SinkChange.retire(new MerchantDayKey(timer.getKey(), date, currency))));
        }
        totals.clear();
        seen.setCurrentNamespace(day);
        seen.clear();
        openDays.remove(day);
    }

    @Override
    public void onProcessingTime(InternalTimer<String, Long> timer) {
        // Bundles are finished through the processing-time service, not keyed timers.
    }
}
