package io.effonce.testing.workload;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a {@link LedgerWorkload} run writes, built through {@link #builder()}, which checks every
 * value and says how to fix a wrong one.
 *
 * @param count payments to start
 * @param rate payments started per second; 0 for as fast as the database takes them
 * @param merchants number of merchants, {@code m1} to {@code mN}, Zipf-skewed so {@code m1} is big
 * @param zipfExponent skew of the merchant (and currency) choice; 0 is uniform
 * @param currencies ISO 4217 codes, the first the most used
 * @param callers distinct callers (buyers) that own the idempotency keys
 * @param scope prefix of every caller id, so two runs with different scopes never collide
 * @param seed the run's seed: the same seed and options give the same payments
 * @param clock the event-time clock for {@code updated_at}
 * @param zone the zone whose dates the run's own record of successes uses
 * @param batchSize payments started per transaction
 */
public record WorkloadOptions(
        long count,
        double rate,
        int merchants,
        double zipfExponent,
        List<String> currencies,
        int callers,
        String scope,
        long seed,
        EventClock clock,
        ZoneId zone,
        int batchSize) {

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    public WorkloadOptions {
        currencies = List.copyOf(currencies);
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(zone, "zone");
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects options with working defaults; {@link #build()} validates them. */
    public static final class Builder {
        private long count = 10_000;
        private double rate = 0;
        private int merchants = 100;
        private double zipfExponent = 1.0;
        private List<String> currencies = List.of("EUR", "USD", "GBP");
        private int callers = 10_000;
        private String scope = "w";
        private long seed = 1;
        private EventClock clock =
                EventClock.simulated(Instant.parse("2025-01-01T00:00:00Z"), Duration.ofSeconds(1));
        private ZoneId zone = ZoneId.of("UTC");
        private int batchSize = 500;

        public Builder count(long v) {
            count = v;
            return this;
        }

        public Builder rate(double v) {
            rate = v;
            return this;
        }

        public Builder merchants(int v) {
            merchants = v;
            return this;
        }

        public Builder zipfExponent(double v) {
            zipfExponent = v;
            return this;
        }

        public Builder currencies(List<String> v) {
            currencies = v;
            return this;
        }

        public Builder callers(int v) {
            callers = v;
            return this;
        }

        public Builder scope(String v) {
            scope = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder clock(EventClock v) {
            clock = v;
            return this;
        }

        public Builder zone(ZoneId v) {
            zone = v;
            return this;
        }

        public Builder batchSize(int v) {
            batchSize = v;
            return this;
        }

        public WorkloadOptions build() {
            check(count >= 0, "count must be >= 0, was " + count);
            check(rate >= 0, "rate must be >= 0 payments/s (0 = as fast as possible), was " + rate);
            check(merchants >= 1, "merchants must be >= 1, was " + merchants);
            check(
                    zipfExponent >= 0,
                    "zipf exponent must be >= 0 (0 = uniform), was " + zipfExponent);
            check(
                    currencies != null && !currencies.isEmpty(),
                    "give at least one currency, e.g. EUR,USD,GBP");
            for (String c : currencies) {
                check(
                        c != null && CURRENCY.matcher(c).matches(),
                        "currency '" + c + "' is not a 3-letter upper-case ISO 4217 code");
            }
            check(callers >= 1, "callers must be >= 1, was " + callers);
            check(
                    scope != null && !scope.isEmpty() && !scope.contains(":"),
                    "scope must be a non-empty text without ':', was '" + scope + "'");
            check(batchSize >= 1, "batch size must be >= 1, was " + batchSize);
            return new WorkloadOptions(
                    count,
                    rate,
                    merchants,
                    zipfExponent,
                    currencies,
                    callers,
                    scope,
                    seed,
                    Objects.requireNonNull(clock, "clock"),
                    Objects.requireNonNull(zone, "zone"),
                    batchSize);
        }

        private static void check(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
