package io.effonce.feed.page;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class RestoreLogTest {

    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

    private static PageSnapshot.AsOf restoredFrom(Long checkpoint, Instant at) {
        return new PageSnapshot.AsOf(12L, null, null, T0, at, checkpoint, 128, null, null);
    }

    @Test
    void eachNewRestoreIsKeptNewestFirstAndARepeatedReadAddsNothing() {
        RestoreLog log = new RestoreLog();
        assertThat(log.note(null, T0)).isEmpty();
        assertThat(log.note(restoredFrom(null, null), T0)).isEmpty();
        log.note(restoredFrom(5L, T0), T0);
        log.note(restoredFrom(5L, T0), T0.plusSeconds(1));
        var seen = log.note(restoredFrom(9L, T0.plusSeconds(30)), T0.plusSeconds(31));
        assertThat(seen).extracting(PageSnapshot.Restore::checkpointId).containsExactly(9L, 5L);
        assertThat(seen.get(0).seenAt()).isEqualTo(T0.plusSeconds(31));
    }

    @Test
    void theSubtasksOfOneRestoreRecordingItOneAfterTheOtherMakeOneMarker() {
        RestoreLog log = new RestoreLog();
        log.note(restoredFrom(5L, T0), T0);
        var seen = log.note(restoredFrom(5L, T0.plusMillis(40)), T0.plusSeconds(1));
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).at()).isEqualTo(T0);
    }

    @Test
    void onlyTheNewestAreKept() {
        RestoreLog log = new RestoreLog();
        for (long i = 1; i <= RestoreLog.KEPT + 5; i++) {
            log.note(restoredFrom(i, T0.plusSeconds(i)), T0.plusSeconds(i));
        }
        var seen = log.note(null, T0);
        assertThat(seen).hasSize(RestoreLog.KEPT);
        assertThat(seen.get(0).checkpointId()).isEqualTo(RestoreLog.KEPT + 5L);
    }
}
