package io.effonce.job;

/**
 * The value of {@code merchant_daily_totals}: the day's sum in minor units and its count. Its name
 * is part of the savepoint format (a POJO serializer's snapshot restores its class by name); the
 * sink knows it only as {@code V}.
 */
public record DailyTotal(long totalMinor, long payments) {}
