package io.effonce.testing.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class PaymentStateTest {

    @Test
    void nothingLeavesAFinalState() {
        for (PaymentState s :
                EnumSet.of(PaymentState.SUCCEEDED, PaymentState.FAILED, PaymentState.VOID)) {
            assertThat(s.isFinal()).isTrue();
            assertThat(s.successors()).isEmpty();
            for (PaymentState next : PaymentState.values()) {
                assertThat(s.canMoveTo(next)).as("%s -> %s", s, next).isFalse();
            }
        }
    }

    @Test
    void pendingMayBecomeUnknownOrFinalAndUnknownOnlyFinal() {
        assertThat(PaymentState.PENDING.successors())
                .containsExactlyInAnyOrder(
                        PaymentState.UNKNOWN, PaymentState.SUCCEEDED, PaymentState.FAILED);
        assertThat(PaymentState.UNKNOWN.successors())
                .containsExactlyInAnyOrder(PaymentState.SUCCEEDED, PaymentState.FAILED);
        assertThat(PaymentState.UNKNOWN.canMoveTo(PaymentState.PENDING)).isFalse();
        assertThat(PaymentState.PENDING.canMoveTo(PaymentState.VOID)).isFalse();
    }

    @Test
    void rowsAreBornPendingOrVoid() {
        assertThat(EnumSet.allOf(PaymentState.class).stream().filter(PaymentState::isInitial))
                .containsExactlyInAnyOrder(PaymentState.PENDING, PaymentState.VOID);
    }
}
