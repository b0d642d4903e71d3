package io.effonce.it.testutils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.oracle.Comparison;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The invariant every test in this module checks, with the ledger as the oracle: for every
 * (merchant, day, currency), sink total + late total = ledger total, and the sink holds no key the
 * ledger lacks (an extra key shows as a difference of kind EXTRA).
 */
public final class TotalsInvariant {

    /** Upper bound for the totals to settle; on a busy machine a catch-up takes a while. */
    public static final Duration TIMEOUT = Duration.ofMinutes(5);

    private TotalsInvariant() {}

    /**
     * Holds the workload still at a commit, waits until the invariant holds against that ledger,
     * marks the fault's recovery exact, and lets the workload go on: the "time to exact" of a
     * fault, and a check of the invariant after every fault rather than only at the end.
     */
    public static Comparison awaitExactAfter(
            ChaosReport.Recovery recovery, RunningWorkload workload, PostgresEndpoint db) {
        AtomicReference<Comparison> exact = new AtomicReference<>();
        workload.whilePaused(
                () -> {
                    exact.set(awaitHolds(db, TIMEOUT));
                    recovery.exact();
                });
        return exact.get();
    }

    /** Waits until the invariant holds; fails with the last differences if it never does. */
    public static Comparison awaitHolds(PostgresEndpoint db, Duration timeout) {
        return awaitHolds(db, db, timeout);
    }

    /** {@link #awaitHolds(PostgresEndpoint, Duration)} with the ledger in a database of its own. */
    public static Comparison awaitHolds(
            PostgresEndpoint ledger, PostgresEndpoint sink, Duration timeout) {
        try (LedgerOracle ledgerOracle = LedgerOracle.keepingSession(ledger);
                LedgerOracle sinkOracle = LedgerOracle.keepingSession(sink)) {
            return awaitMatch(
                    sink,
                    "sink + late_events equal to the ledger",
                    () ->
                            Comparison.of(
                                    ledgerOracle.ledgerTotals(),
                                    LedgerOracle.sum(
                                            sinkOracle.sinkTotals(), sinkOracle.lateTotals())),
                    timeout);
        }
    }

    /**
     * Waits until the sink alone equals the ledger: for runs in which late_events holds only copies
     * of changes that were counted (a late duplicate), which the recount matches by id.
     */
    public static Comparison awaitSinkAloneHolds(PostgresEndpoint db, Duration timeout) {
        try (LedgerOracle oracle = LedgerOracle.keepingSession(db)) {
            return awaitMatch(
                    db, "the sink alone equal to the ledger", oracle::compareWithSink, timeout);
        }
    }

    /**
     * Waits until the committed totals plus late_events equal the ledger: once a checkpoint has
     * completed after the live table caught up, the committed table has caught up too.
     */
    public static Comparison awaitCommittedHolds(PostgresEndpoint db, Duration timeout) {
        return awaitCommittedHolds(db, db, timeout);
    }

    /** {@link #awaitCommittedHolds(PostgresEndpoint, Duration)}, the ledger in its own database. */
    public static Comparison awaitCommittedHolds(
            PostgresEndpoint ledger, PostgresEndpoint sink, Duration timeout) {
        try (LedgerOracle ledgerOracle = LedgerOracle.keepingSession(ledger);
                LedgerOracle sinkOracle = LedgerOracle.keepingSession(sink)) {
            return awaitMatch(
                    sink,
                    "committed + late_events equal to the ledger",
                    () ->
                            Comparison.of(
                                    ledgerOracle.ledgerTotals(),
                                    LedgerOracle.sum(
                                            sinkOracle.committedTotals(), sinkOracle.lateTotals())),
                    timeout);
        }
    }

    private static Comparison awaitMatch(
            PostgresEndpoint db, String what, Supplier<Comparison> compare, Duration timeout) {
        AtomicReference<Comparison> last = new AtomicReference<>();
        try {
            await(what)
                    .atMost(timeout)
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> {
                                last.set(compare.get());
                                return last.get().matches() && last.get().keys() > 0;
                            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "Never "
                            + what
                            + " ("
                            + new SinkTables(db).lateEventsSummary()
                            + "): "
                            + last.get(),
                    e);
        }
        return last.get();
    }

    /**
     * Waits until the invariant holds, then checks that the sink alone equals the ledger: for runs
     * in which no change may be late, so late_events must stay empty of counted changes.
     */
    public static Comparison awaitHoldsWithNothingLate(PostgresEndpoint db, Duration timeout) {
        Comparison comparison = awaitHolds(db, timeout);
        assertSinkAloneHolds(db);
        return comparison;
    }

    /** Checks the invariant now. */
    public static Comparison assertHolds(PostgresEndpoint db) {
        Comparison comparison = new LedgerOracle(db).compareWithSinkAndLate();
        assertThat(comparison.matches()).as("%s", comparison).isTrue();
        assertThat(comparison.keys()).as("merchant-days compared").isPositive();
        return comparison;
    }

    /** Checks that the sink alone equals the ledger (no late change lost to late_events). */
    public static Comparison assertSinkAloneHolds(PostgresEndpoint db) {
        Comparison comparison = new LedgerOracle(db).compareWithSink();
        assertThat(comparison.matches()).as("sink alone vs ledger: %s", comparison).isTrue();
        return comparison;
    }

    /** Sum of every total, in minor units (for progress pictures). */
    public static long grandTotal(Map<MerchantDay, Total> totals) {
        return totals.values().stream().mapToLong(Total::totalMinor).sum();
    }
}
