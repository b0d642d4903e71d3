package io.effonce.testing.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.junit.PostgresExtension;
import io.effonce.testing.oracle.LedgerOracle;
import io.effonce.testing.oracle.MerchantDay;
import io.effonce.testing.oracle.Total;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@ExtendWith(PostgresExtension.class)
class LedgerWorkloadOracleITCase {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerWorkloadOracleITCase.class);

    @Test
    void oracleTotalsEqualTheSuccessesTheGeneratorRecordedOver50000Payments(PostgresEndpoint db) {
        // 50,000 payments at 10 event-seconds each: almost six days, so days roll over mid-run.
        WorkloadOptions options =
                WorkloadOptions.builder()
                        .count(50_000)
                        .seed(42)
                        .clock(
                                EventClock.simulated(
                                        Instant.parse("2025-03-01T00:00:00Z"),
                                        Duration.ofSeconds(10)))
                        .build();

        WorkloadReport report = new LedgerWorkload(options).run(db);
        LOG.info("50,000 payments: {}", report.summary());

        Map<MerchantDay, Total> ledger = new LedgerOracle(db).ledgerTotals();
        assertThat(report.created()).isEqualTo(50_000);
        assertThat(ledger).isEqualTo(report.successes());
        assertThat(ledger.keySet().stream().map(MerchantDay::day).distinct()).hasSizeGreaterThan(5);
        long succeeded = report.finalStates().get(PaymentState.SUCCEEDED);
        assertThat(ledger.values().stream().mapToLong(Total::payments).sum()).isEqualTo(succeeded);
    }
}
