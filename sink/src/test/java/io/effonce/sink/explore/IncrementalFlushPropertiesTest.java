package io.effonce.sink.explore;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import io.effonce.testing.jqwik.SoakTries;
import java.time.Duration;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The incremental restore flush against the full one, by differential exploration: every history of
 * {@link Histories} (writes, barriers, completions with the notice delivered or lost, crashes and
 * pauses at any store call, restores from the latest checkpoint, operator rollbacks to older
 * checkpoints with a rescale) is played twice on identical in-memory stores, once with the sink
 * choosing its flush (incremental when the range's commits reached the restored checkpoint) and
 * once with every flush full. Both must satisfy the explorer's model, and the live and committed
 * tables must be identical. Keys are upserted, retired and deleted.
 */
class IncrementalFlushPropertiesTest {

    @Property(tries = 150)
    @SoakTries(300)
    void theIncrementalFlushLeavesTheSameTablesAsTheFullOne(
            @ForAll("histories") Histories.History history) {
        playBoth(history);
    }

    /**
     * The same with keys deleted after a completed checkpoint: a restore of it must not flush
     * incrementally, since the deleted rows left no tag (a counterfactual without the record of
     * deletions fails here).
     */
    @Property(tries = 75)
    @SoakTries(150)
    void deletesAfterACompletedCheckpointLeaveTheSameTablesAsTheFullFlush(
            @ForAll("deleting") Histories.History history) {
        playBoth(history);
    }

    /**
     * The same with {@code sink.retired-retention} 0: state keeps no final value and no tombstone,
     * so every flush must do with what the tables hold (the histories of issue 73 that ended wrong
     * needed a restore without them). The database does not go back in these: without retention,
     * that loses final rows for the recount to repair.
     */
    @Property(tries = 150)
    @SoakTries(300)
    void withoutRetentionTheIncrementalFlushLeavesTheSameTablesAsTheFullOne(
            @ForAll("notGoingBack") Histories.History history) {
        playBoth(history, Duration.ZERO);
    }

    /** See {@link Histories#aResetCutThenCarriedOutAtTheNewLeadersFirstBarrier}. */
    @Example
    void aResetCarriedOutAtAFirstBarrierIsTheOperatorsRollback() {
        playBoth(Histories.aResetCutThenCarriedOutAtTheNewLeadersFirstBarrier());
    }

    private static void playBoth(Histories.History history) {
        playBoth(history, TakeoverExplorer.RETENTION_AS_SHIPPED);
    }

    private static void playBoth(Histories.History history, Duration retention) {
        InMemoryStoreUnderTest chosen = new InMemoryStoreUnderTest();
        InMemoryStoreUnderTest full = new InMemoryStoreUnderTest();
        TakeoverExplorer<String, Long> incremental =
                new TakeoverExplorer<>(chosen, false, false, retention);
        TakeoverExplorer<String, Long> always =
                new TakeoverExplorer<>(full, false, true, retention);
        String wrongIncremental = incremental.play(history.parallelism(), history.steps());
        String wrongFull = always.play(history.parallelism(), history.steps());
        String trace = String.join("\n", incremental.trace());
        assertThat(wrongIncremental).as("incremental: %s", trace).isNull();
        assertThat(wrongFull).as("full: %s", String.join("\n", always.trace())).isNull();
        assertThat(chosen.live()).as(trace).isEqualTo(full.live());
        assertThat(chosen.committed()).as(trace).isEqualTo(full.committed());
        for (String mode : incremental.flushModes()) {
            Statistics.label("a restore flush").collect(mode);
        }
        Statistics.label("flushes of a history")
                .collect(
                        incremental.flushModes().contains("INCREMENTAL")
                                ? "some incremental"
                                : incremental.flushModes().isEmpty() ? "none" : "only full");
    }

    @Provide
    Arbitrary<Histories.History> histories() {
        return Histories.any();
    }

    @Provide
    Arbitrary<Histories.History> notGoingBack() {
        return Histories.withoutTheDatabaseGoingBack();
    }

    @Provide
    Arbitrary<Histories.History> deleting() {
        return Histories.deletingAfterACompletedCheckpoint();
    }
}
