package io.effonce.job.migrate;

import static io.effonce.job.migrate.DedupHarnesses.late;
import static io.effonce.job.migrate.DedupHarnesses.open;
import static io.effonce.job.migrate.DedupHarnesses.passed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.effonce.dedup.SettingChangedException;
import java.time.Duration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;

/**
 * The horizon is recorded with the state. Raising it across a restore is refused: ev_7 expired at T
 * + 2 h, and under 3 h its copy at T would be accepted again and counted twice. Lowering it is
 * allowed: every copy accepted under the smaller horizon still finds its original, whose timer was
 * set with the larger one.
 */
class RecordedHorizonTest {

    private static final long T = 1_000_000L;
    private static final Change EV_7 = new Change("pay_7:SUCCEEDED", "m1", 3_000);

    private static EventTimeDedup<Change> withHorizon(Duration horizon) {
        return EventTimeDedup.<Change>builder().horizon(horizon).build();
    }

    /** ev_7 passed and expired under a 2 h horizon; the watermark is just past T + 2 h. */
    private static OperatorSubtaskState ev7ExpiredUnderTwoHours() throws Exception {
        try (var before = open(withHorizon(Duration.ofHours(2)))) {
            before.processElement(EV_7, T);
            before.processWatermark(T + Duration.ofHours(2).toMillis() + 1);
            assertThat(before.numKeyedStateEntries()).isZero();
            return before.snapshot(1L, 1L);
        }
    }

    @Test
    void raisingTheHorizonAcrossARestoreIsRefusedNamingTheOptionAndBothValues() throws Exception {
        OperatorSubtaskState snapshot = ev7ExpiredUnderTwoHours();
        assertThatThrownBy(() -> open(withHorizon(Duration.ofHours(3)), snapshot))
                .isInstanceOf(SettingChangedException.class)
                .hasMessageContaining("built with dedup.horizon=2 h")
                .hasMessageContaining("this job has dedup.horizon=3 h")
                .hasMessageContaining("counted again");
    }

    @Test
    void theSameHorizonRestoresAndTheFloorStillRejectsTheCopy() throws Exception {
        try (var after = open(withHorizon(Duration.ofHours(2)), ev7ExpiredUnderTwoHours())) {
            after.processElement(EV_7, T);
            assertThat(passed(after)).isEmpty();
            assertThat(late(after)).hasSize(1);
        }
    }

    @Test
    void aLowerHorizonIsAllowedAndAnAcceptedCopyStillFindsItsOriginal() throws Exception {
        OperatorSubtaskState snapshot;
        try (var before = open(withHorizon(Duration.ofHours(2)))) {
            before.processElement(EV_7, T);
            before.processWatermark(T + Duration.ofMinutes(30).toMillis());
            snapshot = before.snapshot(1L, 1L);
        }
        OperatorSubtaskState lowered;
        try (var after = open(withHorizon(Duration.ofHours(1)), snapshot)) {
            after.processElement(EV_7, T); // T + 1 h is above the floor: accepted, a duplicate
            assertThat(passed(after)).isEmpty();
            assertThat(late(after)).isEmpty();
            lowered = after.snapshot(2L, 2L);
        }
        // The lower value is what the state records now: going back up is a raise.
        assertThatThrownBy(() -> open(withHorizon(Duration.ofHours(2)), lowered))
                .isInstanceOf(SettingChangedException.class)
                .hasMessageContaining("built with dedup.horizon=1 h");
    }
}
