package io.effonce.sink.testutils;

import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;

/** A deterministic payment stream for sink pipelines: payment i is a function of i alone. */
public record TestPayment(String merchantId, long amount) {

    public static final LocalDate DAY = LocalDate.of(2026, 11, 29);
    public static final int MERCHANTS = 37;

    public static TestPayment of(long index) {
        return new TestPayment("m" + (index % MERCHANTS), index % 100 + 1);
    }

    public TestKey key() {
        return new TestKey(merchantId, DAY, "EUR");
    }

    /** The totals of payments 0 .. count-1. */
    public static Map<TestKey, Long> expectedTotals(long count) {
        Map<TestKey, Long> totals = new HashMap<>();
        for (long i = 0; i < count; i++) {
            TestPayment p = of(i);
            totals.merge(p.key(), p.amount(), Long::sum);
        }
        return totals;
    }
}
