package io.effonce.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The runs a state descends from, as operator state keeps them and a restore reads them back. */
class RunLineageTest {

    private static final String R1 = "job/d1-run";
    private static final String R2 = "job/d2-run";
    private static final String R3 = "job/d3-run";

    @Test
    void aRestartOfTheSameRunAddsNothingAndANewRunIsABranch() {
        RunLineage first = RunLineage.UNKNOWN.continuedBy(R1, 0);
        assertThat(first.continuedBy(R1, 7)).isEqualTo(first);
        RunLineage rolledBack = first.continuedBy(R2, 3);
        assertThat(rolledBack.lastRun()).hasValue(R2);
        assertThat(rolledBack.entries()).containsExactly("0 " + R1, "3 " + R2);
    }

    @Test
    void theUnionOfEverySubtasksEntriesReadsBackAsOneLineageOldestFirst() {
        List<String> union = List.of("5 " + R2, "0 " + R1, "5 " + R2, "0 " + R1, "9 " + R3);
        RunLineage lineage = RunLineage.of(union);
        assertThat(lineage.entries()).containsExactly("0 " + R1, "5 " + R2, "9 " + R3);
        assertThat(lineage.lastRun()).hasValue(R3);
    }

    @Test
    void anAncestorsWritesAreNotThisLineagesFromWhereItsNextBranchBegan() {
        RunLineage lineage = RunLineage.of(List.of("0 " + R1, "5 " + R2, "9 " + R3));
        assertThat(lineage.forkFrom(RunLineage.parse("0 " + R1))).hasValue(5);
        assertThat(lineage.forkFrom(RunLineage.parse("0 " + R1 + ";5 " + R2))).hasValue(9);
        assertThat(lineage.forkFrom(lineage)).as("its own").isEmpty();
        assertThat(lineage.forkFrom(RunLineage.parse(lineage.text()))).isEmpty();
    }

    @Test
    void anAbandonedBranchPartsWhereEitherOfTheTwoBranchesAfterTheSharedRunBegan() {
        RunLineage lineage = RunLineage.of(List.of("0 " + R1, "5 " + R2, "9 " + R3));
        // R1 -> R2 from 5 -> X from 7, abandoned; this lineage went on with R2 to 9.
        assertThat(lineage.forkFrom(RunLineage.parse("0 " + R1 + ";5 " + R2 + ";7 job/x")))
                .hasValue(7);
        // R1 -> X from 3: X's rows from 3 on, and R1's after 3, are not this lineage's.
        assertThat(lineage.forkFrom(RunLineage.parse("0 " + R1 + ";3 job/x"))).hasValue(3);
        // No run in common: a fresh start's, or two deployments of a state that named no lineage.
        assertThat(lineage.forkFrom(RunLineage.parse("0 job/x"))).hasValue(0);
        assertThat(
                        RunLineage.parse("12 " + R2)
                                .forkFrom(RunLineage.parse("12 " + R1 + ";20 " + R3)))
                .hasValue(12);
    }

    @Test
    void aStateOrARowFromBeforeTheLineageNamesNoRunAndNoFork() {
        assertThat(RunLineage.of(List.of()).lastRun()).isEmpty();
        assertThat(RunLineage.parse(null)).isEqualTo(RunLineage.UNKNOWN);
        assertThat(RunLineage.UNKNOWN.forkFrom(RunLineage.parse("0 " + R1))).isEmpty();
        assertThat(RunLineage.parse("0 " + R1).forkFrom(RunLineage.UNKNOWN)).isEmpty();
    }
}
