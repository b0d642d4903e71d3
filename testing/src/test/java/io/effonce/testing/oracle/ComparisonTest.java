package io.effonce.testing.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.oracle.Comparison.Difference;
import io.effonce.testing.oracle.Comparison.Kind;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComparisonTest {

    private static final LocalDate DAY = LocalDate.of(2025, 1, 1);
    private static final MerchantDay M1 = new MerchantDay("m1", DAY, "EUR");
    private static final MerchantDay M2 = new MerchantDay("m2", DAY, "USD");
    private static final MerchantDay M3 = new MerchantDay("m3", DAY.plusDays(1), "GBP");

    @Test
    void equalTotalsReportNoDifference() {
        Map<MerchantDay, Total> same = Map.of(M1, new Total(15_000, 2), M2, new Total(500, 1));
        Comparison c = Comparison.of(same, Map.copyOf(same));
        assertThat(c.matches()).isTrue();
        assertThat(c.summary()).isEqualTo("2 merchant-days, 0 differences");
    }

    @Test
    void missingExtraAndWrongKeysAreReportedWithBothValues() {
        // The seed's under-billing: m1 stays 12,000 where the ledger says 15,000.
        Map<MerchantDay, Total> ledger = Map.of(M1, new Total(15_000, 2), M2, new Total(500, 1));
        Map<MerchantDay, Total> sink = Map.of(M1, new Total(12_000, 1), M3, new Total(700, 1));

        Comparison c = Comparison.of(ledger, sink);

        assertThat(c.keys()).isEqualTo(3);
        assertThat(c.differences())
                .containsExactly(
                        new Difference(M1, Kind.WRONG, new Total(15_000, 2), new Total(12_000, 1)),
                        new Difference(M2, Kind.MISSING, new Total(500, 1), null),
                        new Difference(M3, Kind.EXTRA, null, new Total(700, 1)));
        assertThat(c.summary())
                .startsWith("3 merchant-days, 3 differences (1 missing, 1 extra, 1 wrong)")
                .contains(
                        "wrong m1 2025-01-01 EUR: expected 15,000 in 2 payments, actual 12,000 in 1 payments")
                .contains("missing m2 2025-01-01 USD: expected 500 in 1 payments, actual nothing")
                .contains("extra m3 2025-01-02 GBP: expected nothing, actual 700 in 1 payments");
    }

    @Test
    void aSameTotalWithAnotherCountIsWrong() {
        Comparison c = Comparison.of(Map.of(M1, new Total(100, 2)), Map.of(M1, new Total(100, 1)));
        assertThat(c.of(Kind.WRONG)).hasSize(1);
    }

    @Test
    void lateTotalsAddToTheSinkKeyByKey() {
        Map<MerchantDay, Total> sink = Map.of(M1, new Total(12_000, 1));
        Map<MerchantDay, Total> late = Map.of(M1, new Total(3_000, 1), M2, new Total(500, 1));
        assertThat(LedgerOracle.sum(sink, late))
                .containsExactly(
                        Map.entry(M1, new Total(15_000, 2)), Map.entry(M2, new Total(500, 1)));
    }
}
