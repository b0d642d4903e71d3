package io.effonce.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** What the throughput benchmark prints beside its medians, and when it refuses to measure. */
class BenchFiguresTest {

    @Test
    void aRatioIsPrintedWithTheLowestAndHighestRoundBesideItsMedian() {
        // Last round's three pairs (issue 74): the spread is as wide as the gap it is about.
        assertThat(Spread.of(1.55, 1.08, 1.22).ratio()).isEqualTo("1.22 (1.08–1.55)");
        assertThat(Spread.of(1.0, 2.0).median()).isEqualTo(1.5);
    }

    @Test
    void aMachineLoadedAboveItsCoresIsRefusedNamingTheWayToMeasureAnyway() {
        assertThat(BusyMachine.refusal(1.9, 2)).isEmpty();
        assertThat(BusyMachine.refusal(2.0, 2)).isEmpty();
        assertThat(BusyMachine.refusal(2.6, 2))
                .get()
                .asString()
                .contains("load average 2.60", "2 cores", "--allow-busy");
    }

    @Test
    void eachRunsCpuIsSplitIntoTheCompilerTheCollectorAndItsThreadsByName() {
        assertThat(CpuByThread.part("C2 CompilerThre")).isEqualTo("JIT");
        assertThat(CpuByThread.part("GC Thread#1")).isEqualTo("GC");
        assertThat(CpuByThread.part("java")).isEqualTo("main");
        assertThat(CpuByThread.part("Merchant totals")).isEqualTo("Merchant totals");
        assertThat(CpuByThread.part("Source Data Fet")).isEqualTo("Source Data Fet");
        assertThat(CpuByThread.part("pool-12-thread-")).isEqualTo("pool--thread-");
        // This JVM's own threads, read where Linux shows them.
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
        assertThat(CpuByThread.of(ProcessHandle.current()))
                .get()
                .asString()
                .matches("CPU [0-9.]+ s: .*, the rest [0-9.]+")
                .containsPattern("JIT [0-9.]+")
                .containsPattern("main [0-9.]+");
    }
}
