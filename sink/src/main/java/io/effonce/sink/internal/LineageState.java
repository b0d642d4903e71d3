package io.effonce.sink.internal;

import io.effonce.sink.SinkStateLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.runtime.state.StateInitializationContext;

/**
 * The runs a sink's state descends from ({@link RunLineage}), in union operator state: what was
 * restored, then, at every snapshot, this run's lineage and the first barrier of this subtask's
 * attempt ({@value #STAGED_FROM} entries): what the run staged from the newest of those through the
 * snapshot's checkpoint is of the snapshot's branch ({@link StagedDiscard}).
 */
final class LineageState {

    private static final String STAGED_FROM = "staged-from ";

    private final ListState<String> state;
    private final RunLineage restored;
    private final OptionalLong restoredStagedFrom;

    /** This attempt's first checkpoint barrier: it staged from there on; -1 before it. */
    private long firstBarrier = -1;

    LineageState(StateInitializationContext context) throws Exception {
        state = context.getOperatorStateStore().getUnionListState(SinkStateLayout.lineage());
        List<String> runs = new ArrayList<>();
        long stagedFrom = -1;
        if (context.isRestored()) {
            for (String entry : state.get()) {
                if (entry.startsWith(STAGED_FROM)) {
                    stagedFrom =
                            Math.max(
                                    stagedFrom,
                                    Long.parseLong(entry.substring(STAGED_FROM.length())));
                } else {
                    runs.add(entry);
                }
            }
        }
        restored = context.isRestored() ? RunLineage.of(runs) : RunLineage.UNKNOWN;
        restoredStagedFrom = stagedFrom < 0 ? OptionalLong.empty() : OptionalLong.of(stagedFrom);
    }

    /**
     * The restored lineage; {@link RunLineage#UNKNOWN} without state, or from before the record.
     */
    RunLineage restored() {
        return restored;
    }

    /**
     * The newest first barrier among the attempts that took the restored checkpoint; empty without
     * state, or from before the record.
     */
    OptionalLong restoredStagedFrom() {
        return restoredStagedFrom;
    }

    /** Notes a barrier of this attempt: the first is where its staging began. */
    void atBarrier(long checkpointId) {
        if (firstBarrier < 0) {
            firstBarrier = checkpointId;
        }
    }

    /** Keeps {@code lineage}, and this attempt's first barrier. */
    void snapshot(RunLineage lineage) throws Exception {
        List<String> entries = new ArrayList<>(lineage.entries());
        if (firstBarrier >= 0) {
            entries.add(STAGED_FROM + firstBarrier);
        }
        state.update(entries);
    }
}
