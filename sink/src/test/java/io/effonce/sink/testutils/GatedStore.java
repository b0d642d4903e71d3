package io.effonce.sink.testutils;

import io.effonce.sink.store.Claim;
import io.effonce.sink.store.KeyGroupSpan;
import io.effonce.sink.store.Progress;
import io.effonce.sink.store.RangeOwner;
import io.effonce.sink.store.RangeRecord;
import io.effonce.sink.store.StoredRow;
import io.effonce.sink.store.Takeover;
import io.effonce.sink.store.TotalsStore;
import io.effonce.sink.store.TotalsStoreFactory;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A store whose every call first passes its attempt's {@link PauseGate}, so a test can freeze the
 * attempt between any two transactions: before the takeover, inside the flush, between a write and
 * the next. With {@code unconditional} it emulates the takeover this project had before the start
 * protocol: the range is taken whatever it holds, and the decision sees only who owned it, as the
 * old survey did. Only for showing what goes wrong without the protocol.
 */
public final class GatedStore<K, V> implements TotalsStore<K, V> {

    private final TotalsStore<K, V> store;
    private final PauseGate gate;
    private final boolean unconditional;

    public GatedStore(TotalsStore<K, V> store, PauseGate gate, boolean unconditional) {
        this.store = store;
        this.gate = gate;
        this.unconditional = unconditional;
    }

    /**
     * Wraps the stores {@code stores} makes, each in the gate of the thread that makes it: the
     * thread of the attempt that opens.
     */
    public static <K, V> TotalsStoreFactory<K, V> gated(
            TotalsStoreFactory<K, V> stores, boolean unconditional) {
        return new TotalsStoreFactory<>() {
            @Override
            public TotalsStore<K, V> create() {
                return new GatedStore<>(stores.create(), PauseGate.ofThisThread(), unconditional);
            }

            @Override
            public OptionalLong numberDeployment() {
                return stores.numberDeployment();
            }
        };
    }

    @Override
    public Takeover takeOwnership(KeyGroupSpan span, Claim claim, Predicate<RangeRecord> mayTake) {
        gate.pass();
        if (!unconditional) {
            return store.takeOwnership(span, claim, mayTake);
        }
        Takeover taken = store.takeOwnership(span, claim, found -> mayTake.test(ownersOnly(found)));
        return new Takeover(ownersOnly(taken.found()), taken.taken(), taken.token());
    }

    @Override
    public void recordBarrier(long checkpointId) {
        gate.pass();
        store.recordBarrier(checkpointId);
    }

    /** What the old takeover knew of a range: the runs that owned it and whether it held rows. */
    private static RangeRecord ownersOnly(RangeRecord found) {
        Set<RangeOwner> owners =
                found.owners().stream()
                        .map(o -> new RangeOwner(o.run(), o.task(), -1, -1, -1, -1))
                        .collect(Collectors.toSet());
        return new RangeRecord(owners, 0, found.lastCommitted(), 0, false, found.hasRows());
    }

    @Override
    public void write(List<StoredRow<K, V>> rows) {
        gate.pass();
        store.write(rows);
    }

    @Override
    public void quarantine(StoredRow<K, V> row, String sqlState, String message) {
        gate.pass();
        store.quarantine(row, sqlState, message);
    }

    @Override
    public List<K> keysTaggedSince(long tag) {
        gate.pass();
        return store.keysTaggedSince(tag);
    }

    @Override
    public void delete(Collection<K> keys) {
        gate.pass();
        store.delete(keys);
    }

    @Override
    public long deleteAll() {
        gate.pass();
        return store.deleteAll();
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<K, V>> rows) {
        gate.pass();
        store.stage(checkpointId, rows);
    }

    @Override
    public int commit(long checkpointId, Progress progress) {
        gate.pass();
        return store.commit(checkpointId, progress);
    }

    @Override
    public void acknowledgeSavepoint(long savepointId) {
        gate.pass();
        store.acknowledgeSavepoint(savepointId);
    }

    @Override
    public void recordRestore(long checkpointId) {
        gate.pass();
        store.recordRestore(checkpointId);
    }

    @Override
    public void discardStagedAfter(long checkpointId) {
        gate.pass();
        store.discardStagedAfter(checkpointId);
    }

    @Override
    public List<K> keysCommittedAfter(long checkpointId) {
        gate.pass();
        return store.keysCommittedAfter(checkpointId);
    }

    @Override
    public void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove) {
        gate.pass();
        store.rollBackCommitted(set, remove);
    }

    @Override
    public String tableName() {
        return store.tableName();
    }

    @Override
    public void close() {
        store.close();
    }
}
