package io.effonce.sink.store;

/** The value of {@code merchant_daily_totals}: the day's sum in minor units and its count. */
public record DailyTotal(long totalMinor, long payments) {}
