package io.effonce.sink.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;

/**
 * The runs a sink subtask's state descends from, oldest first: each began from a checkpoint of the
 * one before it (its base; 0 for a start without state). Checkpoint ids are not one timeline: a run
 * deployed from an older checkpoint numbers its own checkpoints from there, repeating ids an
 * earlier run committed. So the proof that the table holds every write before the restored
 * checkpoint must come from the run that took it, and a database whose progress was committed by a
 * run of another lineage holds that run's writes after the two lineages forked, which this one
 * never made.
 *
 * <p>Kept in the operator's state (one entry {@code "<base> <run>"} per run) and with each commit
 * in {@code sink_progress.committed_lineage} (the entries joined by {@code ;}); a state or a row
 * from before the lineage was kept has none ({@link #UNKNOWN}).
 */
@Internal
public record RunLineage(List<Branch> branches) {

    /** A run of the lineage and the checkpoint it began from. */
    @Internal
    public record Branch(String run, long base) {}

    public static final RunLineage UNKNOWN = new RunLineage(List.of());

    public RunLineage {
        branches = List.copyOf(branches);
    }

    /** The lineage read back from entries, in any order and with repeats (union list state). */
    public static RunLineage of(Iterable<String> entries) {
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

    /** The lineage of {@link #text()}; {@link #UNKNOWN} for null or empty. */
    public static RunLineage parse(String text) {
        return text == null || text.isEmpty() ? UNKNOWN : of(Arrays.asList(text.split(";")));
    }

    /** The entries, oldest first. */
    public List<String> entries() {
        return branches.stream().map(b -> b.base() + " " + b.run()).toList();
    }

    /** The entries joined by {@code ;}, as {@code sink_progress} keeps them. */
    public String text() {
        return branches.stream()
                .map(b -> b.base() + " " + b.run())
                .collect(Collectors.joining(";"));
    }

    /** This lineage continued by {@code run}, which began from checkpoint {@code base}. */
    public RunLineage continuedBy(String run, long base) {
        if (lastRun().filter(run::equals).isPresent()) {
            return this; // a restart of the same run
        }
        List<Branch> continued = new ArrayList<>(branches);
        continued.add(new Branch(run, base));
        return new RunLineage(continued);
    }

    /** The last run; empty when the lineage is not known. */
    public Optional<String> lastRun() {
        return branches.isEmpty()
                ? Optional.empty()
                : Optional.of(branches.get(branches.size() - 1).run());
    }

    /**
     * The checkpoint from which {@code other}'s writes are not this lineage's: where the two went
     * separate ways, the earlier of the two bases that follow their last shared run (a run they
     * share wrote for both only up to where the first of them left it). Empty when {@code other} is
     * this lineage, or either is not known.
     */
    public OptionalLong forkFrom(RunLineage other) {
        if (branches.isEmpty() || other.branches.isEmpty()) {
            return OptionalLong.empty();
        }
        int shared = 0;
        while (shared < branches.size()
                && shared < other.branches.size()
                && branches.get(shared).equals(other.branches.get(shared))) {
            shared++;
        }
        boolean oursEnds = shared == branches.size();
        boolean theirsEnds = shared == other.branches.size();
        if (oursEnds && theirsEnds) {
            return OptionalLong.empty();
        }
        // The last shared run wrote for both until the first of the branches after it began (an
        // ancestor's last run: until this lineage's next branch). With no run in common, both
        // began from no state, or from a state that named no lineage.
        long ours = oursEnds ? Long.MAX_VALUE : branches.get(shared).base();
        long theirs = theirsEnds ? Long.MAX_VALUE : other.branches.get(shared).base();
        return OptionalLong.of(Math.min(ours, theirs));
    }
}
