package io.effonce.dedup;

import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

/**
 * The largest watermark a dedup subtask has seen, kept across restores.
 *
 * <p>Flink does not checkpoint watermarks: after a restore the live watermark starts from {@code
 * Long.MIN_VALUE}. Each subtask writes its floor as one entry of a union list state; on restore
 * (also after a rescale) every subtask receives all entries and takes their maximum. Any subtask's
 * watermark is a safe floor for all of them, because a keyed exchange sends every watermark to
 * every downstream subtask. Used by the dedup operator and by the job's merchant-keyed stage, which
 * judges lateness by the same rule.
 */
public final class WatermarkFloor {

    /** Union list state of {@code Long} (LongSerializer), one entry per subtask. */
    public static final String STATE_NAME = "effonce-dedup-watermark-floor";

    private ListState<Long> state;
    private long value = Long.MIN_VALUE;

    /**
     * Registers the state and, if {@code useRestored}, starts from the maximum of the restored
     * entries; otherwise starts from nothing.
     */
    public void initialize(OperatorStateStore store, boolean useRestored) throws Exception {
        state =
                store.getUnionListState(
                        new ListStateDescriptor<>(STATE_NAME, LongSerializer.INSTANCE));
        value = Long.MIN_VALUE;
        if (useRestored) {
            for (Long restored : state.get()) {
                if (restored != null && restored > value) {
                    value = restored;
                }
            }
        }
    }

    /** Raises the floor to {@code watermark}; a lower watermark never lowers it. */
    public void advance(long watermark) {
        if (watermark > value) {
            value = watermark;
        }
    }

    /**
     * Raises the floor to an event-time watermark and returns true; returns false, the floor left
     * where it is, for the end-of-input watermark ({@code Long.MAX_VALUE}, also a
     * stop-with-savepoint with drain), which is not event time: a job restored from a drained
     * savepoint then judges copies by the last real watermark instead of rejecting every change as
     * late.
     */
    public boolean advanceInEventTime(long watermark) {
        if (watermark == Long.MAX_VALUE) {
            return false;
        }
        advance(watermark);
        return true;
    }

    public long value() {
        return value;
    }

    public void snapshot() throws Exception {
        state.update(List.of(value));
    }
}
