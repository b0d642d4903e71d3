package io.effonce.job.migrate;

import io.effonce.sink.SinkStateLayout;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.state.api.output.TaggedOperatorSubtaskState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Writes the sink's state under a value class ({@code V}; the key class is the keyed input's), as
 * the sink registers it ({@link SinkStateLayout}): each key's last value, retained final value and
 * tombstone, and the lineage (union operator state: the subtask that receives its entries writes
 * them, a restore takes the union). The retained values' time to live starts again at the
 * migration. At the end of its input it snapshots itself into the new savepoint, as {@link
 * MerchantStateBootstrap} does.
 */
final class SinkStateBootstrap<V> extends AbstractStreamOperator<TaggedOperatorSubtaskState>
        implements OneInputStreamOperator<SinkStateEntry, TaggedOperatorSubtaskState>,
                BoundedOneInput {

    /** A value of the class written, from an entry's sum and count. */
    interface ValueOf<V> extends Serializable {
        V of(long totalMinor, long payments);
    }

    private static final long serialVersionUID = 1L;

    private final long checkpointId;
    private final long timestamp;
    private final Path savepointPath;
    private final Duration retention;
    private final TypeInformation<V> valueType;
    private final ValueOf<V> valueOf;

    private transient ListState<String> lineageState;
    private transient Set<String> lineage;
    private transient ValueState<V> last;
    private transient ValueState<V> retired;
    private transient ValueState<Boolean> deleted;

    SinkStateBootstrap(
            long checkpointId,
            long timestamp,
            Path savepointPath,
            Duration retention,
            TypeInformation<V> valueType,
            ValueOf<V> valueOf) {
        this.checkpointId = checkpointId;
        this.timestamp = timestamp;
        this.savepointPath = savepointPath;
        this.retention = retention;
        this.valueType = valueType;
        this.valueOf = valueOf;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        lineageState = context.getOperatorStateStore().getUnionListState(SinkStateLayout.lineage());
        lineage = new LinkedHashSet<>();
    }

    @Override
    public void open() throws Exception {
        super.open();
        last = getPartitionedState(SinkStateLayout.lastValue(valueType));
        if (!retention.isZero()) {
            retired = getPartitionedState(SinkStateLayout.retiredValue(valueType, retention));
            deleted = getPartitionedState(SinkStateLayout.deleted(retention));
        }
    }

    @Override
    public void processElement(StreamRecord<SinkStateEntry> element) throws Exception {
        SinkStateEntry e = element.getValue();
        if (e.isLineage()) {
            lineage.add(e.lineage);
            return;
        }
        if (e.hasLast) {
            last.update(valueOf.of(e.lastTotalMinor, e.lastPayments));
        }
        if (e.hasRetired && retired != null) {
            retired.update(valueOf.of(e.retiredTotalMinor, e.retiredPayments));
        }
        if (e.deleted && deleted != null) {
            deleted.update(true);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        lineageState.update(new ArrayList<>(lineage));
    }

    @Override
    public void endInput() throws Exception {
        output.collect(
                new StreamRecord<>(
                        BootstrapSnapshot.of(this, checkpointId, timestamp, savepointPath)));
    }
}
