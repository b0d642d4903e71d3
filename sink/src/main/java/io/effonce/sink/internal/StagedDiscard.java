package io.effonce.sink.internal;

import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * What a restore of checkpoint {@code checkpoint} discards of its range's staged values. Everything
 * staged after the checkpoint goes: the run that staged it was erased. So does what was staged
 * after {@code suspectAfter} by an attempt outside the checkpoint's lineage, which would otherwise
 * be committed with the checkpoint's own staged values; each staged row names the run that staged
 * it, and what the run that took the checkpoint staged for it ({@code lineage}) stays: a deletion
 * staged before a lost notice is the only record of it once state forgot it. A row that names no
 * run (staged before runs were recorded) goes as any other.
 *
 * @param checkpoint the restored checkpoint
 * @param suspectAfter rows staged after it and not kept by {@code lineage} go; {@code checkpoint}
 *     when no attempt outside the lineage may have staged
 * @param lineage the checkpoints a run staged for the restored checkpoint's branch
 */
@Internal
public record StagedDiscard(long checkpoint, long suspectAfter, List<LineageWindow> lineage) {

    /**
     * Run {@code run} staged for the lineage after checkpoint {@code after} and through {@code
     * through}.
     */
    @Internal
    public record LineageWindow(String run, long after, long through) {
        public LineageWindow {
            Objects.requireNonNull(run, "run");
        }
    }

    public StagedDiscard {
        if (suspectAfter > checkpoint) {
            throw new IllegalArgumentException(
                    "suspectAfter " + suspectAfter + " > checkpoint " + checkpoint);
        }
        lineage = List.copyOf(lineage);
    }

    /** Everything staged after {@code checkpoint}, and nothing else. */
    public static StagedDiscard after(long checkpoint) {
        return new StagedDiscard(checkpoint, checkpoint, List.of());
    }

    /** Whether a row staged at {@code tag} by {@code run} (null when not recorded) goes. */
    public boolean discards(String run, long tag) {
        if (tag > checkpoint) {
            return true;
        }
        if (tag <= suspectAfter) {
            return false;
        }
        return lineage.stream()
                .noneMatch(w -> w.run().equals(run) && tag > w.after() && tag <= w.through());
    }
}
