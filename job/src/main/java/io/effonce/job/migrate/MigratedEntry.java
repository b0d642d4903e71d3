package io.effonce.job.migrate;

import io.effonce.job.DailyTotal;
import java.time.LocalDate;

/**
 * One piece of state on its way from the two-stage layout to the merchant layout: a merchant-day's
 * total in one currency, a remembered event id (of one day once placed), or — no merchant, operator
 * state — one dedup subtask's watermark floor or a setting the old state recorded. A Flink POJO:
 * public fields, a public no-argument constructor.
 */
public class MigratedEntry {

    public String merchant;

    /** The day ({@code LocalDate.toEpochDay()}); for an id, only once placed in an open day. */
    public long day;

    /** Null for an event id. */
    public String currency;

    public long totalMinor;
    public long payments;

    /** Null for a total. */
    public String eventId;

    /** Set on a floor entry only. */
    public Long floor;

    /** The option of a recorded setting (null on any other entry), and its recorded value. */
    public String option;

    public String recorded;

    public MigratedEntry() {}

    static MigratedEntry total(
            String merchant, LocalDate day, String currency, long totalMinor, long payments) {
        MigratedEntry e = new MigratedEntry();
        e.merchant = merchant;
        e.day = day.toEpochDay();
        e.currency = currency;
        e.totalMinor = totalMinor;
        e.payments = payments;
        return e;
    }

    static MigratedEntry id(String merchant, String eventId) {
        MigratedEntry e = new MigratedEntry();
        e.merchant = merchant;
        e.eventId = eventId;
        return e;
    }

    static MigratedEntry floor(long floor) {
        MigratedEntry e = new MigratedEntry();
        e.merchant = "";
        e.floor = floor;
        return e;
    }

    static MigratedEntry recordedSetting(String option, String recorded) {
        MigratedEntry e = new MigratedEntry();
        e.merchant = "";
        e.option = option;
        e.recorded = recorded;
        return e;
    }

    MigratedEntry inDay(long epochDay) {
        MigratedEntry e = id(merchant, eventId);
        e.day = epochDay;
        return e;
    }

    boolean isFloor() {
        return floor != null;
    }

    boolean isRecordedSetting() {
        return option != null;
    }

    boolean isId() {
        return eventId != null;
    }

    DailyTotal dailyTotal() {
        return new DailyTotal(totalMinor, payments);
    }
}
