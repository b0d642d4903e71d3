package io.effonce.sink.store;

/**
 * The value of {@code merchant_daily_totals}: the day's sum in minor units and its count.
 *
 * <p>A job type in the sink's old package: this class's name is how every savepoint since 0.1.0
 * names the sink's value serializer (a POJO serializer's snapshot restores by class name), so it
 * keeps the name it had when the sink owned it. The sink itself knows it only as {@code V}; see
 * sink/README.md, "The row mapping, and the two classes with the sink's name".
 */
public record DailyTotal(long totalMinor, long payments) {}
