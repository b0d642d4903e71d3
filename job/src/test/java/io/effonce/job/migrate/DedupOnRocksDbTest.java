package io.effonce.job.migrate;

import static io.effonce.job.migrate.DedupHarnesses.late;
import static io.effonce.job.migrate.DedupHarnesses.open;
import static io.effonce.job.migrate.DedupHarnesses.passed;
import static io.effonce.job.migrate.DedupHarnesses.rememberedIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.dedup.LateCopy;
import java.time.Duration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.junit.jupiter.api.Test;

/** The same rules on the production state backend, RocksDB (timers stored in RocksDB too). */
class DedupOnRocksDbTest {

    private static final long H = Duration.ofHours(2).toMillis();
    private static final long T = 1_000_000L;
    private static final Change EV_7 = new Change("pay_7:SUCCEEDED", "m1", 3_000);
    private static final Change EV_8 = new Change("pay_8:SUCCEEDED", "m1", 1_000);

    @Test
    void onRocksDbDuplicatesAreDroppedIdsExpireAndTheFloorSurvivesARestore() throws Exception {
        EventTimeDedup<Change> dedup = EventTimeDedup.<Change>builder().build();
        OperatorSubtaskState snapshot;
        try (var before = open(dedup, null, new EmbeddedRocksDBStateBackend(), 1, 0)) {
            assertThat(before.getOperator().<String>getKeyedStateBackend())
                    .isInstanceOf(RocksDBKeyedStateBackend.class);
            before.processElement(EV_7, T);
            before.processElement(EV_8, T + 10);
            before.processElement(EV_7, T);
            assertThat(passed(before)).containsExactly(EV_7, EV_8);
            assertThat(rememberedIds(before)).isEqualTo(2);
            assertThat(before.numEventTimeTimers()).isEqualTo(2);

            before.processWatermark(T + H); // ev_7 expires, ev_8 is still remembered
            assertThat(rememberedIds(before)).isEqualTo(1);
            assertThat(before.numEventTimeTimers()).isEqualTo(1);
            snapshot = before.snapshot(1L, 1L);
        }
        try (var after = open(dedup, snapshot, new EmbeddedRocksDBStateBackend(), 1, 0)) {
            after.processElement(EV_7, T); // late by the restored floor, not by the watermark
            after.processElement(EV_8, T + 10); // still remembered
            assertThat(passed(after)).isEmpty();
            assertThat(late(after)).extracting(LateCopy::record).containsExactly(EV_7);

            after.processWatermark(T + 10 + H);
            assertThat(rememberedIds(after)).isZero();
            assertThat(after.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void onRocksDbTheProcessingTimeTtlCanBeSwitchedOn() throws Exception {
        EventTimeDedup<Change> dedup =
                EventTimeDedup.<Change>builder().stateTtl(Duration.ofHours(8)).build();
        try (var h = open(dedup, null, new EmbeddedRocksDBStateBackend(), 1, 0)) {
            h.processElement(EV_7, T);
            h.processElement(EV_7, T);
            assertThat(passed(h)).containsExactly(EV_7);
            h.processWatermark(T + H);
            assertThat(rememberedIds(h)).isZero();
        }
    }
}
