package io.effonce.job.upgrade;

import io.effonce.job.decode.PaymentChange;
import io.effonce.job.migrate.EventTimeDedup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import javax.annotation.Nullable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;

/**
 * The operator-state fixtures of a release: the dedup operator, run over a small known input and
 * snapshotted the way Flink's own operator migration tests do. (0.1.0's daily-totals snapshot names
 * the state classes 0.3.0 renamed; only the savepoint migration reads that stage's state since,
 * proven on the whole-job savepoint by {@code JobSavepointCompatibilityITCase}.) Each release adds
 * its snapshots to {@code src/test/resources/savepoints/<release>/} and {@code
 * OperatorStateCompatibilityTest} restores every release's into the current code.
 *
 * <p>Generate (from the repository root, after {@code mvn -B -q -o install -DskipTests}): see
 * job/README.md, "Upgrades".
 */
public final class OperatorStateFixtures {

    /** The release whose fixtures {@link #main} writes. */
    public static final String RELEASE = "0.1.0";

    static final int MAX_PARALLELISM = 128;
    static final long HORIZON = Duration.ofHours(2).toMillis();
    static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    static final long T = DAY.atTime(10, 0).toInstant(ZoneOffset.UTC).toEpochMilli();

    /** The floor the dedup fixture holds: ev_1's id expired, ev_2's not. */
    static final long FLOOR = T + HORIZON + 1;

    static final PaymentChange EV_1 = change("pay_1", "m1", 3_000, T);
    static final PaymentChange EV_2 = change("pay_2", "m1", 1_000, T + HORIZON);
    static final PaymentChange EV_3 = change("pay_3", "m2", 500, T + HORIZON);

    private OperatorStateFixtures() {}

    /** Writes this release's fixtures into {@code args[0]} (a directory). */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]).resolve(RELEASE);
        Files.createDirectories(dir);
        OperatorSnapshotUtil.writeStateHandle(
                dedupState(), dir.resolve("dedup.snapshot").toString());
        System.out.println("Wrote the fixtures of " + RELEASE + " to " + dir.toAbsolutePath());
    }

    /** ev_1 passes, the watermark expires its id, ev_2 passes: one id remembered, floor set. */
    static OperatorSubtaskState dedupState() throws Exception {
        try (var h = dedup(null)) {
            h.processElement(new StreamRecord<>(EV_1, EV_1.eventTimeMillis()));
            h.processWatermark(FLOOR);
            h.processElement(new StreamRecord<>(EV_2, EV_2.eventTimeMillis()));
            return h.snapshot(1, 1);
        }
    }

    static KeyedOneInputStreamOperatorTestHarness<String, PaymentChange, PaymentChange> dedup(
            @Nullable OperatorSubtaskState restore) throws Exception {
        EventTimeDedup<PaymentChange> dedup = EventTimeDedup.<PaymentChange>builder().build();
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        dedup.<String>createOperator(TypeInformation.of(PaymentChange.class)),
                        PaymentChange::eventId,
                        Types.STRING,
                        MAX_PARALLELISM,
                        1,
                        0);
        return opened(h, restore);
    }

    private static <H extends KeyedOneInputStreamOperatorTestHarness<?, ?, ?>> H opened(
            H harness, @Nullable OperatorSubtaskState restore) throws Exception {
        harness.setup();
        if (restore != null) {
            harness.initializeState(restore);
        } else {
            harness.initializeEmptyState();
        }
        harness.open();
        return harness;
    }

    static PaymentChange change(String paymentId, String merchant, long amount, long at) {
        return new PaymentChange(
                paymentId, merchant, amount, "EUR", "SUCCEEDED", at, DAY, "t", 0, 0);
    }
}
