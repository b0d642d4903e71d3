package io.effonce.sink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Run ids read back as the deployment numbers they carry, and nothing else does. */
class DeploymentOrderTest {

    /** A bare UUID, as a run the database could not number gets, that looks like d1234567-. */
    private static final String UNNUMBERED = "d1234567-89ab-4cde-8f01-23456789abcd";

    private static final UUID UNIQUE = UUID.fromString("0f0e0d0c-0b0a-4908-8706-050403020100");

    @Test
    void aNumberedRunReadsBackItsNumberWithOrWithoutTheJobId() {
        String run = DeploymentOrder.runId(1_733_300_000_000_000L, UNIQUE);
        assertThat(DeploymentOrder.of(run)).hasValue(1_733_300_000_000_000L);
        assertThat(DeploymentOrder.of("a1b2c3/" + run)).hasValue(1_733_300_000_000_000L);
    }

    @Test
    void anUnnumberedRunWhoseUuidStartsWithDAndSevenDigitsHasNoNumber() {
        assertThat(DeploymentOrder.of(UNNUMBERED)).isEmpty();
        assertThat(DeploymentOrder.of("job/" + UNNUMBERED)).isEmpty();
        // Read as deployment 1234567, it was older than every numbered one and refused for good.
        String numbered = "job/" + DeploymentOrder.runId(1_733_300_000_000_000L, UNIQUE);
        assertThat(DeploymentOrder.later(numbered, "job/" + UNNUMBERED)).isFalse();
        assertThat(DeploymentOrder.later("job/" + UNNUMBERED, numbered)).isFalse();
    }

    @Test
    void aLaterNumberIsALaterDeployment() {
        String earlier = "job/" + DeploymentOrder.runId(7, UNIQUE);
        String later = "job/" + DeploymentOrder.runId(8, UUID.randomUUID());
        assertThat(DeploymentOrder.later(later, earlier)).isTrue();
        assertThat(DeploymentOrder.later(earlier, later)).isFalse();
    }

    @Test
    void aNumberTooLargeForALongIsNoNumberRatherThanAFailure() {
        assertThat(DeploymentOrder.of("d" + "9".repeat(30) + "-" + UNIQUE)).isEmpty();
    }
}
