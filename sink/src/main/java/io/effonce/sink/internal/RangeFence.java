package io.effonce.sink.internal;

import java.util.function.Function;
import org.apache.flink.annotation.Internal;

/** The fence of a sink table: who owns which key groups, decided by the database. */
@Internal
public interface RangeFence {

    /**
     * Takes {@code span} for {@code claim} on the {@code terms} given for what the range holds,
     * read inside the takeover's own transaction (takeovers of one table are serialized, and the
     * fence rows stay locked until it ends): the database, not the caller's memory, decides who is
     * newer. When taken, the claimant gets a token bigger than any before, the fence records the
     * claim, a run it took key groups from is marked superseded, and from now on the previous
     * owners' writes are refused. When not taken, nothing is written.
     */
    Takeover takeOwnership(
            KeyGroupSpan span, Claim claim, Function<RangeRecord, TakeoverTerms> terms);

    /**
     * Records that this writer passed checkpoint barrier {@code checkpointId} in its range, before
     * it acknowledges the checkpoint: a claim of another execution graph that restored an older
     * checkpoint then knows the range moved on. Fails with {@link FencedException} once taken over.
     */
    void recordBarrier(long checkpointId);

    /**
     * Records that this writer passed the barrier of savepoint {@code savepointId} in its range,
     * before it acknowledges the savepoint. Flink may still restore an older checkpoint by itself
     * (a stop-with-savepoint that fails once its savepoint completed); the takeover of that restore
     * marks the savepoint's branch erased, and a deployment from the savepoint then knows that the
     * run's later writes are another branch's ({@link RangeRecord#savepointBranchErasedAt}).
     */
    void recordSavepointBarrier(long savepointId);

    /**
     * Releases this writer's hold on its range ({@link RangeRecord#leases}) as it closes, so that a
     * start without state after a cancel need not wait for the lease to run out. Changes nothing
     * when the range was taken over since. Best effort: a writer that cannot reach the database
     * keeps its lease until it runs out.
     */
    void releaseLease();
}
