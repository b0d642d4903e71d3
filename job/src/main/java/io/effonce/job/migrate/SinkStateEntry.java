package io.effonce.job.migrate;

import io.effonce.job.MerchantDayKey;
import java.time.LocalDate;

/**
 * One key's sink state on its way to the job's own key and value classes (its last value, its
 * retained final value, its tombstone), or, without a key, one entry of the sink's lineage. A Flink
 * POJO: public fields, a public no-argument constructor.
 */
public class SinkStateEntry {

    public String merchantId = "";

    /** The day ({@code LocalDate.toEpochDay()}). */
    public long day;

    public String currency = "";

    public boolean hasLast;
    public long lastTotalMinor;
    public long lastPayments;

    public boolean hasRetired;
    public long retiredTotalMinor;
    public long retiredPayments;

    public boolean deleted;

    /** An entry of the sink's lineage (union operator state); null on a key's entry. */
    public String lineage;

    public SinkStateEntry() {}

    static SinkStateEntry lineage(String entry) {
        SinkStateEntry e = new SinkStateEntry();
        e.lineage = entry;
        return e;
    }

    /** The key the entry is written under; every lineage entry has the same empty one. */
    MerchantDayKey key() {
        return new MerchantDayKey(merchantId, LocalDate.ofEpochDay(day), currency);
    }

    boolean isLineage() {
        return lineage != null;
    }
}
