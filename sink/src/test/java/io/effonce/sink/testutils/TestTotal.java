package io.effonce.sink.testutils;

/** The sink tests' value: a total in minor units and its count. */
public record TestTotal(long totalMinor, long payments) {}
