package io.effonce.cdc.republish;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RepublishableValueTest {

    private static final String AFTER =
            "{\"payment_id\":\"pay_1\",\"merchant_id\":\"m1\",\"amount\":3000,\"currency\":\"EUR\","
                    + "\"state\":\"SUCCEEDED\",\"updated_at\":\"2026-12-02T08:00:00Z\"}";

    @Test
    void aChangeIsPublishedUnderItsPaymentsKeyInEitherForm() {
        String schemasOff = "{\"before\":null,\"after\":" + AFTER + ",\"op\":\"u\"}";
        String schemasOn = "{\"schema\":{},\"payload\":{\"before\":null,\"after\":" + AFTER + "}}";
        assertThat(RepublishableValue.of(schemasOff))
                .isEqualTo(new RepublishableValue("pay_1", null));
        assertThat(RepublishableValue.of(schemasOn))
                .isEqualTo(new RepublishableValue("pay_1", null));
    }

    @Test
    void whatCouldOnlyBeADeadLetterAgainIsSkippedWithItsReason() {
        String cut = "{\"before\":null,\"after\":" + AFTER.substring(0, 40);
        assertThat(RepublishableValue.of(cut).skipped()).startsWith("not whole JSON");
        assertThat(RepublishableValue.of("{\"heartbeat\":true,\"ts_ms\":1,\"lsn\":null}").skipped())
                .startsWith("a heartbeat");
        assertThat(RepublishableValue.of("[1,2]").skipped()).isEqualTo("not a JSON object");
        assertThat(RepublishableValue.of("{\"after\":{\"payment_id\":17}}").skipped())
                .startsWith("no after.payment_id");
        assertThat(RepublishableValue.of(null).skipped()).startsWith("no value");
    }
}
