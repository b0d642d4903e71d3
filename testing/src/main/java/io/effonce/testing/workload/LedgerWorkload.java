package io.effonce.testing.workload;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.workload.LedgerWrites.MoveRow;
import io.effonce.testing.workload.LedgerWrites.StoredRow;
import io.effonce.testing.workload.PaymentPlan.Move;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Writes payments into the ledger the way a payment API would. Every payment starts as a PENDING
 * row (or a VOID row), inserted if absent under {@code UNIQUE (caller_id, client_key)}; a request
 * that hits the key is answered from the row that is there. Each later step runs in a later
 * transaction: a compare-and-set {@code UPDATE ... WHERE state = <expected>} per state change, or a
 * retry of the same request. Several payments share a transaction for speed, but no payment has two
 * changes in one, so the change stream sees PENDING, UNKNOWN and the final state separately.
 *
 * <p>The run is deterministic for a seed (see {@link PaymentPlans}); with a simulated {@link
 * EventClock} the {@code updated_at} values are too. What the run committed is in its {@link
 * WorkloadReport}.
 */
public final class LedgerWorkload {

    private final WorkloadOptions options;
    private final PaymentPlans plans;

    public LedgerWorkload(WorkloadOptions options) {
        this.options = options;
        this.plans = new PaymentPlans(options);
    }

    /** Runs the whole workload against {@code db}. */
    public WorkloadReport run(PostgresEndpoint db) {
        return run(db, report -> {});
    }

    /** Runs the whole workload, calling {@code afterCommit} after every transaction. */
    public WorkloadReport run(PostgresEndpoint db, Consumer<WorkloadReport> afterCommit) {
        return run(db, afterCommit, () -> false);
    }

    /**
     * Runs the workload until all {@code count} payments are started or {@code stopRequested} says
     * so, then drains: every payment already started takes its remaining steps, so the run ends
     * with no payment half-way. {@code afterCommit} runs after every transaction and may block (a
     * test pausing the workload); time spent in it does not count toward the pace, so a paused
     * workload resumes at its rate instead of bursting to catch up.
     */
    public WorkloadReport run(
            PostgresEndpoint db,
            Consumer<WorkloadReport> afterCommit,
            BooleanSupplier stopRequested) {
        WorkloadReport report = new WorkloadReport(options.zone());
        long start = System.nanoTime();
        long pacedFrom = start;
        try (Connection connection = db.connect()) {
            connection.setAutoCommit(false);
            try (LedgerWrites writes = new LedgerWrites(connection)) {
                List<InFlight> inFlight = new ArrayList<>();
                long next = 0;
                long last = options.count();
                int batch = batchSize();
                while (next < last || !inFlight.isEmpty()) {
                    if (next < last && stopRequested.getAsBoolean()) {
                        last = next;
                    }
                    int n = (int) Math.min(batch, last - next);
                    pace(pacedFrom, next + n);
                    WorkloadReport.Counts t = report.newTransaction();
                    List<InFlight> going = transaction(writes, next, n, inFlight, t, report);
                    connection.commit();
                    report.committed(t);
                    inFlight = going;
                    next += n;
                    report.elapsedNanos(System.nanoTime() - start);
                    long callbackStart = System.nanoTime();
                    afterCommit.accept(report);
                    pacedFrom += System.nanoTime() - callbackStart;
                }
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "The workload failed against " + db + ": " + e.getMessage(), e);
        }
        report.elapsedNanos(System.nanoTime() - start);
        return report;
    }

    /** One transaction: the next step of every payment in flight, then {@code n} new payments. */
    private List<InFlight> transaction(
            LedgerWrites writes,
            long first,
            int n,
            List<InFlight> inFlight,
            WorkloadReport.Counts t,
            WorkloadReport report)
            throws SQLException {
        Instant now = options.clock().now(first);
        List<InFlight> retried = new ArrayList<>();
        List<InFlight> moved = new ArrayList<>();
        List<MoveRow> moves = new ArrayList<>();
        for (InFlight f : inFlight) {
            if (f.nextStep() instanceof Move m) {
                moved.add(f);
                moves.add(new MoveRow(f.plan, f.state, m.to(), now));
            } else {
                retried.add(f);
            }
        }
        boolean[] applied = writes.move(moves);
        for (int i = 0; i < applied.length; i++) {
            InFlight f = moved.get(i);
            if (!applied[i]) {
                t.casConflicts++; // someone else moved it: the row has the answer
                f.abandon();
                continue;
            }
            PaymentState to = moves.get(i).to();
            t.stateChanges++;
            f.state = to;
            if (to == PaymentState.SUCCEEDED) {
                t.succeeded(f.plan, now, report.zone());
            }
        }
        retry(writes, retried, now, t);

        List<PaymentPlan> fresh = new ArrayList<>(n);
        List<Instant> times = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            fresh.add(plans.plan(first + i));
            times.add(options.clock().now(first + i));
        }
        Set<String> created =
                fresh.isEmpty() ? Set.of() : writes.insertIfAbsent(fresh, null, times);
        t.eventTime = n > 0 ? times.get(n - 1) : now;

        List<InFlight> going = new ArrayList<>();
        for (InFlight f : inFlight) {
            f.advance();
            if (!f.done()) {
                going.add(f);
            } else if (!f.abandoned) {
                t.finished(f.state);
            }
        }
        for (PaymentPlan p : fresh) {
            if (!created.contains(LedgerWrites.scope(p))) {
                t.answeredFromExisting++; // a re-run: the ledger already holds this request
            } else if (p.steps().isEmpty()) {
                t.created++;
                t.finished(p.initial());
            } else {
                t.created++;
                going.add(new InFlight(p));
            }
        }
        return going;
    }

    /** Sends each request again: it must hit the unique key and be answered from the row. */
    private static void retry(
            LedgerWrites writes, List<InFlight> retried, Instant now, WorkloadReport.Counts t)
            throws SQLException {
        if (retried.isEmpty()) {
            return;
        }
        List<PaymentPlan> requests = retried.stream().map(f -> f.plan).toList();
        Set<String> created =
                writes.insertIfAbsent(
                        requests, PaymentState.PENDING, Collections.nCopies(requests.size(), now));
        if (!created.isEmpty()) {
            throw new IllegalStateException(
                    "A retry created a second row for "
                            + created
                            + ": the unique key did not hold");
        }
        Map<String, StoredRow> rows = writes.read(requests);
        for (PaymentPlan p : requests) {
            StoredRow row = rows.get(LedgerWrites.scope(p));
            if (row == null || !row.paymentId().equals(p.paymentId())) {
                throw new IllegalStateException(
                        "A retry of " + p.paymentId() + " was answered from " + row);
            }
            if (row.state() == PaymentState.VOID) {
                t.lateOriginalsRefused++; // 409: the key was voided before the original arrived
            } else if (p.fingerprint().equals(row.fingerprint())) {
                t.retriesAnswered++; // the same request: answer with the row's state
            } else {
                throw new IllegalStateException(
                        "A retry of " + p.paymentId() + " found another request's fingerprint");
            }
        }
    }

    private int batchSize() {
        if (options.rate() <= 0) {
            return options.batchSize();
        }
        // About 20 transactions a second at low rates, so pacing stays smooth.
        return (int) Math.max(1, Math.min(options.batchSize(), Math.ceil(options.rate() / 20)));
    }

    private void pace(long startNanos, long paymentsStarted) {
        if (options.rate() <= 0) {
            return;
        }
        long due = startNanos + (long) (paymentsStarted / options.rate() * 1e9);
        long wait;
        while ((wait = due - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
    }

    /** A payment whose row exists and whose steps are not all done. */
    private static final class InFlight {
        final PaymentPlan plan;
        PaymentState state;
        int step;
        boolean abandoned;

        InFlight(PaymentPlan plan) {
            this.plan = plan;
            this.state = plan.initial();
        }

        PaymentPlan.Step nextStep() {
            return plan.steps().get(step);
        }

        void advance() {
            step++;
        }

        void abandon() {
            abandoned = true;
            step = plan.steps().size() - 1;
        }

        boolean done() {
            return step >= plan.steps().size();
        }
    }
}
