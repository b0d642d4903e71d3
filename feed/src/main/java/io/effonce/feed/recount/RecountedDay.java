package io.effonce.feed.recount;

import java.time.LocalDate;

/**
 * What the recount of one day found and published.
 *
 * @param keys merchant-days (merchant, currency) published for the day
 * @param changedKeys keys whose recount differs from the committed total
 * @param ledgerMinor the day's SUCCEEDED total in the ledger, which the recount publishes
 * @param committedMinor the day's committed total the stream had
 * @param lateIds late event ids of the day ({@code late_events})
 * @param lateIdsInLedger those whose payment the ledger holds as SUCCEEDED on that day
 * @param lateMinor the amount of those late ids
 * @param millis how long the recount took
 */
public record RecountedDay(
        LocalDate day,
        int keys,
        int changedKeys,
        long ledgerMinor,
        long committedMinor,
        long lateIds,
        long lateIdsInLedger,
        long lateMinor,
        long millis) {

    /**
     * The late amount the stream had already counted: a late copy that re-delivered a counted
     * change. Adding every late event to the committed totals would count it twice.
     */
    public long lateAlreadyCountedMinor() {
        return lateMinor - (ledgerMinor - committedMinor);
    }

    public String summary() {
        return "%s: %d keys, %d changed; ledger %d, committed %d (+%d); %d late ids (%d in the ledger,"
                        .formatted(
                                day,
                                keys,
                                changedKeys,
                                ledgerMinor,
                                committedMinor,
                                ledgerMinor - committedMinor,
                                lateIds,
                                lateIdsInLedger)
                + " %d minor units, %d of them counted before); %d ms"
                        .formatted(lateMinor, lateAlreadyCountedMinor(), millis);
    }
}
