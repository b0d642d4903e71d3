package io.effonce.feed.page;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * The restores this page has seen while it runs, newest first: {@code committed_progress} keeps
 * only the last one, so each restore from a new checkpoint it reports is added here. Each sink
 * subtask records its own restore (its own time), so the view's last restore moves a few times for
 * one restore of the job: a restore from the same checkpoint as the newest marker is that one. Kept
 * in memory, at most {@link #KEPT}; a page started later knows only the last restore.
 */
final class RestoreLog {

    static final int KEPT = 20;

    private final Deque<PageSnapshot.Restore> seen = new ArrayDeque<>();

    /** Notes the progress row's last restore, if it is new; returns the restores seen. */
    synchronized List<PageSnapshot.Restore> note(PageSnapshot.AsOf asOf, Instant now) {
        if (asOf != null && asOf.lastRestoreAt() != null) {
            PageSnapshot.Restore newest = seen.peekFirst();
            boolean same =
                    newest != null
                            && Objects.equals(newest.checkpointId(), asOf.lastRestoredCheckpoint());
            if (!same) {
                seen.addFirst(
                        new PageSnapshot.Restore(
                                asOf.lastRestoreAt(), asOf.lastRestoredCheckpoint(), now));
                while (seen.size() > KEPT) {
                    seen.removeLast();
                }
            }
        }
        return List.copyOf(seen);
    }
}
