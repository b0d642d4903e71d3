package io.effonce.testing.workload;

import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a workload run did, counted only from committed transactions: rows created, retries and how
 * they were answered, final states, and the successes per (merchant, day, currency), which tests
 * compare with the ledger oracle.
 */
public final class WorkloadReport {

    private final ZoneId zone;
    private final Counts counts = new Counts();
    private final Map<PaymentState, Long> finalStates = new EnumMap<>(PaymentState.class);
    private final SortedMap<MerchantDay, Total> successes = new TreeMap<>();
    private long transactions;
    private Instant lastEventTime;
    private long elapsedNanos;

    WorkloadReport(ZoneId zone) {
        this.zone = zone;
    }

    /** Counters of one transaction, or of the whole run. */
    static final class Counts {
        long created;
        long answeredFromExisting;
        long retriesAnswered;
        long lateOriginalsRefused;
        long stateChanges;
        long casConflicts;
        final Map<PaymentState, Long> finals = new EnumMap<>(PaymentState.class);
        final Map<MerchantDay, Total> successes = new TreeMap<>();
        Instant eventTime;

        void finished(PaymentState state) {
            finals.merge(state, 1L, Long::sum);
        }

        void succeeded(PaymentPlan plan, Instant at, ZoneId zone) {
            MerchantDay key =
                    new MerchantDay(
                            plan.merchantId(), LocalDate.ofInstant(at, zone), plan.currency());
            successes.merge(key, new Total(plan.amount(), 1), Total::plus);
        }
    }

    Counts newTransaction() {
        return new Counts();
    }

    /** Adds a committed transaction's counts. */
    void committed(Counts t) {
        counts.created += t.created;
        counts.answeredFromExisting += t.answeredFromExisting;
        counts.retriesAnswered += t.retriesAnswered;
        counts.lateOriginalsRefused += t.lateOriginalsRefused;
        counts.stateChanges += t.stateChanges;
        counts.casConflicts += t.casConflicts;
        t.finals.forEach((k, v) -> finalStates.merge(k, v, Long::sum));
        t.successes.forEach((k, v) -> successes.merge(k, v, Total::plus));
        if (t.eventTime != null) {
            lastEventTime = t.eventTime;
        }
        transactions++;
    }

    void elapsedNanos(long nanos) {
        elapsedNanos = nanos;
    }

    ZoneId zone() {
        return zone;
    }

    /** Payments this run started: rows created plus first attempts answered from a row. */
    public long started() {
        return counts.created + counts.answeredFromExisting;
    }

    /** Rows this run created (PENDING or VOID). */
    public long created() {
        return counts.created;
    }

    /** First attempts that found a row already there (a re-run) and were answered from it. */
    public long answeredFromExisting() {
        return counts.answeredFromExisting;
    }

    /** Retries of a live request that hit the unique key and were answered from its row. */
    public long retriesAnswered() {
        return counts.retriesAnswered;
    }

    /** Late originals that found their key VOID and were refused (409). */
    public long lateOriginalsRefused() {
        return counts.lateOriginalsRefused;
    }

    /** UPDATEs that moved a row from one state to another. */
    public long stateChanges() {
        return counts.stateChanges;
    }

    /** Compare-and-set moves that found the row in another state and were answered from it. */
    public long casConflicts() {
        return counts.casConflicts;
    }

    public long transactions() {
        return transactions;
    }

    /** How many payments this run brought to each final state. */
    public Map<PaymentState, Long> finalStates() {
        return Collections.unmodifiableMap(finalStates);
    }

    /** The successes this run committed, by the zone's date of the SUCCEEDED change. */
    public SortedMap<MerchantDay, Total> successes() {
        return Collections.unmodifiableSortedMap(successes);
    }

    /** The event time of the last committed change, or null before the first commit. */
    public Instant lastEventTime() {
        return lastEventTime;
    }

    public double elapsedSeconds() {
        return elapsedNanos / 1e9;
    }

    /** Payments started per second of wall time. */
    public double paymentsPerSecond() {
        double s = elapsedSeconds();
        return s > 0 ? started() / s : 0;
    }

    /** One readable paragraph for logs and the command line. */
    public String summary() {
        return String.format(
                "%,d rows created, %,d answered from an existing row, %,d retries answered,"
                        + " %,d late originals refused (a 409: their key was voided before they"
                        + " arrived, as the ledger's rule says; no payment is lost),"
                        + " %,d state changes, %,d compare-and-set"
                        + " conflicts, final states %s, %,d merchant-days with successes,"
                        + " %,d transactions in %.1f s (%,.0f payments/s), event time up to %s",
                counts.created,
                counts.answeredFromExisting,
                counts.retriesAnswered,
                counts.lateOriginalsRefused,
                counts.stateChanges,
                counts.casConflicts,
                finalStates,
                successes.size(),
                transactions,
                elapsedSeconds(),
                paymentsPerSecond(),
                lastEventTime);
    }

    @Override
    public String toString() {
        return summary();
    }
}
