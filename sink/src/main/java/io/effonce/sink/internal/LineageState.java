package io.effonce.sink.internal;

import io.effonce.sink.SinkStateLayout;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.runtime.state.StateInitializationContext;

/**
 * The runs a sink's state descends from ({@link RunLineage}), in union operator state: what was
 * restored, then, at every snapshot, this run's lineage.
 */
final class LineageState {

    private final ListState<String> state;
    private final RunLineage restored;

    LineageState(StateInitializationContext context) throws Exception {
        state = context.getOperatorStateStore().getUnionListState(SinkStateLayout.lineage());
        restored = context.isRestored() ? RunLineage.of(state.get()) : RunLineage.UNKNOWN;
    }

    /**
     * The restored lineage; {@link RunLineage#UNKNOWN} without state, or from before the record.
     */
    RunLineage restored() {
        return restored;
    }

    void snapshot(RunLineage lineage) throws Exception {
        state.update(lineage.entries());
    }
}
