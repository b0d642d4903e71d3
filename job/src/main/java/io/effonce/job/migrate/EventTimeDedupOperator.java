package io.effonce.job.migrate;

import io.effonce.dedup.LateCopy;
import io.effonce.dedup.Lateness;
import io.effonce.dedup.RecordedSetting;
import io.effonce.dedup.WatermarkFloor;
import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * The two-stage layout's dedup operator ({@link EventTimeDedup}): keyed event-time deduplication,
 * kept because its state is what the migration reads from old savepoints. Must run on a stream
 * keyed by event ID; the event time is the stream record's timestamp.
 *
 * <p>Guarantees, with {@code bound = max(floor, live watermark)}:
 *
 * <ul>
 *   <li>a copy with {@code eventTime + horizon <= bound} is late: it goes to the late side output
 *       as a {@link LateCopy} and touches no state;
 *   <li>otherwise the first copy of an ID passes and every later copy is dropped, as long as the ID
 *       is remembered;
 *   <li>an ID is remembered (keyed state, checkpointed) until the watermark reaches {@code
 *       eventTime + horizon} of its first copy. Expiry and lateness use the same boundary, so an
 *       accepted copy of the same event (same event time) always finds its original;
 *   <li>the floor (largest watermark seen, see {@link WatermarkFloor}) survives restores, so a copy
 *       that was late before a crash is still late after it;
 *   <li>the end-of-input watermark ({@code Long.MAX_VALUE}, also sent by a stop-with-savepoint with
 *       drain) is forwarded but changes nothing: no floor at the end of time, no expiry of every
 *       ID, so a drained savepoint restores like any other.
 * </ul>
 *
 * <p>State (names are part of the savepoint format, do not change them): keyed {@code
 * ValueState<Boolean>} {@value #SEEN_STATE_NAME} ({@code BooleanSerializer}), event-time timers
 * {@value #TIMER_SERVICE_NAME} ({@code VoidNamespace}), operator union list state {@value
 * WatermarkFloor#STATE_NAME} ({@code LongSerializer}), operator union list state {@code
 * effonce-setting-dedup.horizon} ({@link RecordedSetting}, {@code StringSerializer}).
 */
public class EventTimeDedupOperator<K, T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T>, Triggerable<K, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    /** Keyed state: present (true) while the ID is remembered. */
    public static final String SEEN_STATE_NAME = "effonce-dedup-seen";

    /** Event-time timer service: one timer per remembered ID at event time + horizon. */
    public static final String TIMER_SERVICE_NAME = "effonce-dedup-expiry";

    public static final String METRIC_PASSED = "passed";
    public static final String METRIC_DUPLICATES_DROPPED = "duplicatesDropped";
    public static final String METRIC_LATE_REJECTED = "lateRejected";
    public static final String METRIC_WATERMARK_FLOOR = "watermarkFloor";

    private final Lateness lateness;
    private final OutputTag<LateCopy<T>> lateTag;
    private final RecordedSetting recordedHorizon;

    private transient ValueState<Boolean> seen;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient WatermarkFloor floor;
    private transient Counter passed;
    private transient Counter duplicatesDropped;
    private transient Counter lateRejected;

    /** Use {@link EventTimeDedup#createOperator}. */
    EventTimeDedupOperator(Lateness lateness, OutputTag<LateCopy<T>> lateTag) {
        this.lateness = lateness;
        this.lateTag = lateTag;
        this.recordedHorizon = lateness.recordedHorizon();
    }

    /** The seen-ids state as this operator registers it (also read by the layout migration). */
    public static ValueStateDescriptor<Boolean> seenIds(@Nullable Duration stateTtl) {
        ValueStateDescriptor<Boolean> descriptor =
                new ValueStateDescriptor<>(SEEN_STATE_NAME, BooleanSerializer.INSTANCE);
        if (stateTtl != null) {
            descriptor.enableTimeToLive(Lateness.idsTtl(stateTtl));
        }
        return descriptor;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        floor = new WatermarkFloor();
        floor.initialize(context.getOperatorStateStore(), lateness.watermarkFloor());
        recordedHorizon.check(context.getOperatorStateStore(), context.isRestored());
    }

    @Override
    public void open() throws Exception {
        super.open();
        seen = getPartitionedState(seenIds(lateness.stateTtl()));
        timers =
                getInternalTimerService(TIMER_SERVICE_NAME, VoidNamespaceSerializer.INSTANCE, this);

        MetricGroup metrics = getMetricGroup();
        passed = metrics.counter(METRIC_PASSED);
        duplicatesDropped = metrics.counter(METRIC_DUPLICATES_DROPPED);
        lateRejected = metrics.counter(METRIC_LATE_REJECTED);
        metrics.gauge(METRIC_WATERMARK_FLOOR, () -> floor.value());
    }

    @Override
    public void processElement(StreamRecord<T> element) throws Exception {
        if (!element.hasTimestamp()) {
            throw new IllegalStateException(
                    "Dedup needs event time: the record has no timestamp. Assign timestamps and"
                            + " watermarks (WatermarkStrategy) before the dedup operator.");
        }
        long eventTime = element.getTimestamp();
        long expiry = expiryOf(eventTime);
        long watermark = timers.currentWatermark();
        long bound = lateness.bound(floor.value(), watermark);

        if (lateness.isLate(eventTime, bound)) {
            lateRejected.inc();
            output.collect(
                    lateTag,
                    new StreamRecord<>(
                            new LateCopy<>(element.getValue(), eventTime, watermark, floor.value()),
                            eventTime));
            return;
        }
        if (seen.value() != null) {
            duplicatesDropped.inc();
            return;
        }
        seen.update(Boolean.TRUE);
        timers.registerEventTimeTimer(VoidNamespace.INSTANCE, expiry);
        passed.inc();
        output.collect(element);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (!floor.advanceInEventTime(mark.getTimestamp())) {
            // End of input: forwarded, and no remembered ID expires.
            output.emitWatermark(mark);
            return;
        }
        super.processWatermark(mark);
    }

    @Override
    public void onEventTime(InternalTimer<K, VoidNamespace> timer) {
        seen.clear();
    }

    @Override
    public void onProcessingTime(InternalTimer<K, VoidNamespace> timer) {
        // No processing-time timers are registered.
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        floor.snapshot();
    }

    /** {@code eventTime + horizon}, saturated at {@code Long.MAX_VALUE}. */
    long expiryOf(long eventTime) {
        return lateness.expiryOf(eventTime);
    }

    /** The current floor, as the {@value #METRIC_WATERMARK_FLOOR} gauge reports it. */
    long watermarkFloor() {
        return floor.value();
    }

    long passedCount() {
        return passed.getCount();
    }

    long duplicatesDroppedCount() {
        return duplicatesDropped.getCount();
    }

    long lateRejectedCount() {
        return lateRejected.getCount();
    }
}
