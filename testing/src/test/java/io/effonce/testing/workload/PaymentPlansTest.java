package io.effonce.testing.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.workload.PaymentPlan.Move;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class PaymentPlansTest {

    private static final int N = 20_000;

    private static List<PaymentPlan> plans(WorkloadOptions options) {
        PaymentPlans plans = new PaymentPlans(options);
        return LongStream.range(0, N).mapToObj(plans::plan).toList();
    }

    @Test
    void theSameSeedGivesTheSamePaymentsAndAnotherSeedOthers() {
        WorkloadOptions a = WorkloadOptions.builder().seed(5).build();
        assertThat(plans(a)).isEqualTo(plans(WorkloadOptions.builder().seed(5).build()));
        assertThat(plans(a).get(0))
                .isNotEqualTo(plans(WorkloadOptions.builder().seed(6).build()).get(0));
        // A plan does not depend on the batch size or the rate.
        assertThat(plans(WorkloadOptions.builder().seed(5).batchSize(7).rate(3).build()))
                .isEqualTo(plans(a));
    }

    @Test
    void paymentIdsAreDerivedFromTheScopeAndUnique() {
        List<PaymentPlan> all = plans(WorkloadOptions.builder().build());
        for (PaymentPlan p : all.subList(0, 100)) {
            assertThat(p.paymentId())
                    .isEqualTo(PaymentPlans.paymentId(p.callerId(), p.clientKey()))
                    .startsWith("pay_");
        }
        assertThat(all).extracting(PaymentPlan::paymentId).doesNotHaveDuplicates();
        assertThat(all.stream().map(p -> p.callerId() + ":" + p.clientKey()))
                .doesNotHaveDuplicates();
    }

    @Test
    void everyPlanFollowsTheStateMachine() {
        for (PaymentPlan p : plans(WorkloadOptions.builder().build())) {
            assertThat(p.initial().isInitial()).isTrue();
            PaymentState state = p.initial();
            for (PaymentPlan.Step step : p.steps()) {
                if (step instanceof Move m) {
                    assertThat(state.canMoveTo(m.to())).as("%s in %s", m, p).isTrue();
                    state = m.to();
                }
            }
            assertThat(state.isFinal()).as("%s", p).isTrue();
            assertThat(p.amount()).isBetween(100L, 200_000L);
        }
    }

    @Test
    void merchantsAreZipfSkewedWithOneVeryBigMerchant() {
        Map<String, Long> perMerchant =
                plans(WorkloadOptions.builder().merchants(100).build()).stream()
                        .collect(
                                Collectors.groupingBy(
                                        PaymentPlan::merchantId, Collectors.counting()));
        long m1 = perMerchant.get("m1");
        // Zipf with exponent 1 over 100 merchants: m1 takes 1 / H(100), about 19%.
        assertThat(m1).isBetween(N * 17L / 100, N * 21L / 100);
        assertThat(m1)
                .isGreaterThan(perMerchant.get("m2"))
                .isGreaterThan(10 * perMerchant.get("m50"));
    }

    @Test
    void theMixHasEveryOutcomeAndEveryCurrency() {
        List<PaymentPlan> all =
                plans(
                        WorkloadOptions.builder()
                                .currencies(List.of("EUR", "USD", "GBP", "JPY"))
                                .build());
        Map<PaymentState, Long> finals =
                all.stream()
                        .collect(
                                Collectors.groupingBy(
                                        PaymentPlan::finalState, Collectors.counting()));
        assertThat(finals.get(PaymentState.SUCCEEDED)).isBetween(N * 84L / 100, N * 89L / 100);
        assertThat(finals.get(PaymentState.VOID)).isBetween(N / 100L, N * 3L / 100);
        assertThat(all.stream().filter(p -> p.steps().contains(new Move(PaymentState.UNKNOWN))))
                .hasSizeBetween(N * 8 / 100, N * 12 / 100);
        assertThat(all.stream().filter(PaymentPlan::hasRetry)).hasSizeGreaterThan(N * 4 / 100);
        assertThat(all.stream().map(PaymentPlan::currency).distinct())
                .containsExactlyInAnyOrder("EUR", "USD", "GBP", "JPY");
        assertThat(
                        all.stream()
                                .collect(
                                        Collectors.groupingBy(
                                                PaymentPlan::currency, Collectors.counting())))
                .extractingByKey("EUR", org.assertj.core.api.InstanceOfAssertFactories.LONG)
                .isGreaterThan(N / 3L);
        assertThat(
                        all.stream()
                                .map(PaymentPlan::clientKey)
                                .collect(
                                        Collectors.toMap(
                                                Function.identity(), k -> 1, Integer::sum)))
                .hasSize(N);
    }
}
