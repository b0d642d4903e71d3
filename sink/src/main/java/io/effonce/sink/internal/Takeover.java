package io.effonce.sink.internal;

import org.apache.flink.annotation.Internal;

/**
 * The outcome of a conditional takeover.
 *
 * @param found what the takeover transaction read before it decided
 * @param taken whether the claimant now owns the range; when not, nothing was written
 * @param token the claimant's new fencing token, -1 when not taken
 */
@Internal
public record Takeover(RangeRecord found, boolean taken, long token) {}
