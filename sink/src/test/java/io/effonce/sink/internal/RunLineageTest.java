package io.effonce.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
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
    void aDatabaseAtAnAncestorsProgressForkedWhereTheNextBranchBegan() {
        RunLineage lineage = RunLineage.of(List.of("0 " + R1, "5 " + R2, "9 " + R3));
        assertThat(lineage.forkAfter(Set.of(R1))).hasValue(5);
        assertThat(lineage.forkAfter(Set.of(R2))).hasValue(9);
        assertThat(lineage.forkAfter(Set.of(R1, R2))).hasValue(5);
        assertThat(lineage.forkAfter(Set.of(R3))).as("the restored run's own").isEmpty();
        assertThat(lineage.forkAfter(Set.of("job/elsewhere"))).as("not known here").isEmpty();
    }

    @Test
    void aStateFromBeforeTheLineageNamesNoRun() {
        assertThat(RunLineage.of(List.of()).lastRun()).isEmpty();
        assertThat(RunLineage.UNKNOWN.forkAfter(Set.of(R1))).isEmpty();
    }
}
