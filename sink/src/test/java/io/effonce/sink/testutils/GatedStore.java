package io.effonce.sink.testutils;

import io.effonce.sink.Progress;
import io.effonce.sink.SinkStoreFactory;
import io.effonce.sink.internal.AttemptId;
import io.effonce.sink.internal.Claim;
import io.effonce.sink.internal.KeyGroupSpan;
import io.effonce.sink.internal.RangeOwner;
import io.effonce.sink.internal.RangeRecord;
import io.effonce.sink.internal.SinkStore;
import io.effonce.sink.internal.StagedDiscard;
import io.effonce.sink.internal.StoredRow;
import io.effonce.sink.internal.Takeover;
import io.effonce.sink.internal.TakeoverTerms;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A store whose every call first passes its attempt's {@link PauseGate}, so a test can freeze the
 * attempt between any two transactions: before the takeover, inside the flush, between a write and
 * the next. With {@code unconditional} it emulates the takeover this project had before the start
 * protocol: the range is taken whatever it holds, and the decision sees only who owned it, as the
 * old survey did. Only for showing what goes wrong without the protocol.
 */
public final class GatedStore<K, V> implements SinkStore<K, V> {

    private final SinkStore<K, V> store;
    private final PauseGate gate;
    private final boolean unconditional;
    private final boolean cutsAtItsConnection;

    public GatedStore(SinkStore<K, V> store, PauseGate gate, boolean unconditional) {
        this(store, gate, unconditional, false);
    }

    private GatedStore(
            SinkStore<K, V> store,
            PauseGate gate,
            boolean unconditional,
            boolean cutsAtItsConnection) {
        this.store = store;
        this.gate = gate;
        this.unconditional = unconditional;
        this.cutsAtItsConnection = cutsAtItsConnection;
    }

    /**
     * Wraps the stores {@code stores} makes, each in the gate of the thread that makes it: the
     * thread of the attempt that opens.
     */
    public static <K, V> SinkStoreFactory<K, V> gated(
            SinkStoreFactory<K, V> stores, boolean unconditional) {
        return gated(stores, unconditional, false);
    }

    /**
     * As {@link #gated(SinkStoreFactory, boolean)}; with {@code cutsAtItsConnection} the stores
     * connect through {@link CuttingDriver}, which cuts the drawn store call's COMMIT itself, and
     * the session's retries run as they do in production. Otherwise a cut is played at the call: a
     * lost answer runs the call twice (as a session retrying it would), a database down fails it.
     */
    public static <K, V> SinkStoreFactory<K, V> gated(
            SinkStoreFactory<K, V> stores, boolean unconditional, boolean cutsAtItsConnection) {
        return new SinkStoreFactory<>() {
            @Override
            public SinkStore<K, V> create() {
                return new GatedStore<>(
                        stores.create(),
                        PauseGate.ofThisThread(),
                        unconditional,
                        cutsAtItsConnection);
            }

            @Override
            public OptionalLong numberDeployment() {
                return stores.numberDeployment();
            }
        };
    }

    @Override
    public Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms) {
        if (!unconditional) {
            return call(() -> store.takeOwnership(span, claim, terms));
        }
        Takeover taken =
                call(
                        () ->
                                store.takeOwnership(
                                        span, claim, found -> terms.apply(ownersOnly(found))));
        return new Takeover(ownersOnly(taken.found()), taken.taken(), taken.token());
    }

    @Override
    public void recordBarrier(long checkpointId) {
        run(() -> store.recordBarrier(checkpointId));
    }

    @Override
    public void recordSavepointBarrier(long savepointId) {
        run(() -> store.recordSavepointBarrier(savepointId));
    }

    @Override
    public void releaseLease() {
        run(store::releaseLease);
    }

    /** What the old takeover knew of a range: the runs that owned it and whether it held rows. */
    private static RangeRecord ownersOnly(RangeRecord found) {
        Set<RangeOwner> owners =
                found.owners().stream()
                        .map(
                                o ->
                                        new RangeOwner(
                                                AttemptId.of(
                                                        o.id().run(), o.id().task(), -1, -1, -1),
                                                -1))
                        .collect(Collectors.toSet());
        return new RangeRecord(
                owners,
                0,
                found.lastCommitted(),
                0,
                false,
                found.hasRows(),
                found.newestDeletion(),
                Set.of(),
                OptionalLong.empty(),
                0,
                Map.of(),
                Optional.empty());
    }

    @Override
    public void write(List<StoredRow<K, V>> rows) {
        run(() -> store.write(rows));
    }

    @Override
    public void quarantine(StoredRow<K, V> row, String sqlState, String message) {
        run(() -> store.quarantine(row, sqlState, message));
    }

    @Override
    public List<K> keysTaggedSince(long tag) {
        return call(() -> store.keysTaggedSince(tag));
    }

    @Override
    public void delete(List<StoredRow<K, V>> tombstones) {
        run(() -> store.delete(tombstones));
    }

    @Override
    public long deleteAll() {
        return call(() -> store.deleteAll());
    }

    @Override
    public void stage(long checkpointId, List<StoredRow<K, V>> rows) {
        run(() -> store.stage(checkpointId, rows));
    }

    @Override
    public int commit(long checkpointId, Progress progress) {
        return call(() -> store.commit(checkpointId, progress));
    }

    @Override
    public int promoteStaged(long checkpointId) {
        return call(() -> store.promoteStaged(checkpointId));
    }

    @Override
    public void acknowledgeSavepoint(long savepointId) {
        run(() -> store.acknowledgeSavepoint(savepointId));
    }

    @Override
    public void recordRestore(long checkpointId, boolean repaired) {
        run(() -> store.recordRestore(checkpointId, repaired));
    }

    @Override
    public void discardStaged(StagedDiscard discard) {
        run(() -> store.discardStaged(discard));
    }

    @Override
    public List<K> keysCommittedAfter(long checkpointId) {
        return call(() -> store.keysCommittedAfter(checkpointId));
    }

    @Override
    public List<K> restoreLiveFromCommitted(long checkpointId, Collection<K> keys, long tag) {
        return call(() -> store.restoreLiveFromCommitted(checkpointId, keys, tag));
    }

    @Override
    public void rollBackCommitted(List<StoredRow<K, V>> set, Collection<K> remove) {
        run(() -> store.rollBackCommitted(set, remove));
    }

    private void run(Runnable call) {
        call(
                () -> {
                    call.run();
                    return null;
                });
    }

    /**
     * Passes the gate, then makes the call; if the gate drew a cut for it, cuts it: at the
     * connection's COMMIT when the store connects through {@link CuttingDriver}, else here.
     */
    private <T> T call(Supplier<T> call) {
        ConnectionCut cut = gate.pass();
        if (cut == null) {
            return call.get();
        }
        if (cutsAtItsConnection) {
            CuttingDriver.arm(gate, cut);
            try {
                return call.get();
            } finally {
                CuttingDriver.disarm();
            }
        }
        gate.cutHit(cut);
        if (!cut.committed()) {
            if (cut.databaseDown()) {
                throw cut.unreachable();
            }
            return call.get(); // the retry: the first run left nothing
        }
        T result = call.get();
        if (cut.databaseDown()) {
            throw cut.unreachable();
        }
        return call.get(); // the retry of a transaction that committed
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
