package io.effonce.it.soak;

import io.effonce.it.testutils.RunningWorkload;
import io.effonce.it.testutils.Workloads;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SoakRun;
import io.effonce.testing.workload.WorkloadReport;

/**
 * The soak's workload on the ledger, running throughout. A ledger failover breaks its connection,
 * as it breaks every client's; {@link #restartAfterFailover} starts it again on the promoted
 * standby, under a scope of its own (the lost primary may have had payments the new one lacks), its
 * event time after the newest change in the ledger.
 */
final class SoakWorkload implements AutoCloseable {

    /**
     * Payments a second: 400 in CI, 800 with the soak flag. Recoveries, not the load, set the
     * soak's length; at half the rate its load leaves the other test JVM more of the two cores.
     */
    static final double RATE = SoakRun.asked() ? 800 : 400;

    private final PostgresEndpoint ledger;
    private RunningWorkload current;
    private long startedByEarlierRuns;
    private int runs;

    SoakWorkload(PostgresEndpoint ledger) {
        this.ledger = ledger;
        this.current = start();
    }

    private RunningWorkload start() {
        runs++;
        String scope = "soak" + runs;
        // A new run's event time goes on after the newest change: the job's watermark is there.
        return RunningWorkload.start(
                runs == 1
                        ? Workloads.unbounded(scope, RATE)
                        : Workloads.options(
                                scope, Long.MAX_VALUE, RATE, Workloads.afterNewestChange(ledger)),
                ledger);
    }

    /** See {@link RunningWorkload#awaitMore}. */
    void awaitMore(long more) {
        current.awaitMore(more);
    }

    /** See {@link RunningWorkload#whilePaused}. */
    void whilePaused(Runnable check) {
        current.whilePaused(check);
    }

    /** Waits for the run to fail on its lost primary; returns why it failed. */
    Throwable awaitFailure() {
        return current.awaitFailure();
    }

    /** Starts a new run once the ledger has a primary again. */
    void restartAfterFailover() {
        startedByEarlierRuns += current.started();
        current.close();
        current = start();
    }

    /** Stops the run now going; returns its report. */
    WorkloadReport stopAndDrain() {
        return current.stopAndDrain();
    }

    /** Payments every run started (committed, as its primary acknowledged them). */
    long started() {
        return startedByEarlierRuns + current.started();
    }

    @Override
    public void close() {
        current.close();
    }
}
