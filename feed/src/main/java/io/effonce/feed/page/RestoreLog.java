package io.effonce.feed.page;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * The restores this page has seen while it runs, newest first: {@code committed_progress} keeps
 * only the last one, so each new (restored at, restored checkpoint) it reports is added here. Kept
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
                            && newest.at().equals(asOf.lastRestoreAt())
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
