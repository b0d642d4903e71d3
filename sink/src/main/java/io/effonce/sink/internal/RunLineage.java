package io.effonce.sink.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The runs a subtask's state descends from, oldest first: each began from a checkpoint of the one
 * before it (its base; 0 for a start without state). Checkpoint ids are not one timeline: a run
 * restored from an older checkpoint numbers its own checkpoints from there, repeating ids an
 * earlier run committed. So the proof that the table holds every write before the restored
 * checkpoint must come from the run that took that checkpoint, and a database found at an
 * ancestor's progress holds that ancestor's writes after the fork too, which this lineage never
 * made.
 *
 * <p>Kept in operator state (union list state, so any subtask of any parallelism reads it), one
 * entry {@code "<base> <run>"} per run; a state from before the lineage was kept has none.
 */
record RunLineage(List<Branch> branches) {

    /** A run of the lineage and the checkpoint it began from. */
    record Branch(String run, long base) {}

    static final RunLineage UNKNOWN = new RunLineage(List.of());

    RunLineage {
        branches = List.copyOf(branches);
    }

    /** The lineage read back from the union of every subtask's entries. */
    static RunLineage of(Iterable<String> entries) {
        Map<String, Long> bases = new LinkedHashMap<>();
        for (String entry : entries) {
            int space = entry.indexOf(' ');
            bases.putIfAbsent(
                    entry.substring(space + 1), Long.parseLong(entry.substring(0, space)));
        }
        List<Branch> branches = new ArrayList<>();
        bases.forEach((run, base) -> branches.add(new Branch(run, base)));
        branches.sort(Comparator.comparingLong(Branch::base));
        return new RunLineage(branches);
    }

    /** The entries to keep in operator state. */
    List<String> entries() {
        return branches.stream().map(b -> b.base() + " " + b.run()).toList();
    }

    /** This lineage continued by {@code run}, which began from checkpoint {@code base}. */
    RunLineage continuedBy(String run, long base) {
        if (lastRun().filter(run::equals).isPresent()) {
            return this; // a restart of the same run
        }
        List<Branch> continued = new ArrayList<>(branches);
        continued.add(new Branch(run, base));
        return new RunLineage(continued);
    }

    /** The run that took the restored checkpoint; empty when the state predates the lineage. */
    Optional<String> lastRun() {
        return branches.isEmpty()
                ? Optional.empty()
                : Optional.of(branches.get(branches.size() - 1).run());
    }

    /**
     * The oldest checkpoint after which a run of {@code committedRuns} that is an ancestor in this
     * lineage went on writing outside it (the base of the branch that followed it); empty when none
     * is. A run this lineage does not know is left out: where it forked is not known here.
     */
    OptionalLong forkAfter(Set<String> committedRuns) {
        OptionalLong fork = OptionalLong.empty();
        for (int i = 0; i + 1 < branches.size(); i++) {
            if (committedRuns.contains(branches.get(i).run())) {
                long base = branches.get(i + 1).base();
                if (fork.isEmpty() || base < fork.getAsLong()) {
                    fork = OptionalLong.of(base);
                }
            }
        }
        return fork;
    }
}
