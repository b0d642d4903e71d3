package io.effonce.sink.store;

/**
 * The job's value before 0.3.0, under the name savepoints of 0.1.0 to 0.2.x give its POJO
 * serializer. Only the savepoint migration reads it (see {@link MerchantDayKey}).
 */
public record DailyTotal(long totalMinor, long payments) {}
