package io.effonce.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The relay's metrics as Prometheus reads them. */
class RelayMetricsTextTest {

    @Test
    void countsAndTimesInPrometheusUnitsLabelledWithSlotAndTopic() {
        RelayMetrics m = new RelayMetrics();
        m.published(40, 4, 1_000, 1_700_000_000_000L, 1_700_000_000_250L);
        String text =
                RelayMetricsText.render(
                        m, "ledger", "effonce.public.payments", OptionalLong.of(8192));
        String labels = "{slot=\"ledger\",topic=\"effonce.public.payments\"}";
        assertThat(text)
                .contains("# TYPE effonce_relay_changes_published_total counter\n")
                .contains("effonce_relay_changes_published_total" + labels + " 40\n")
                .contains("effonce_relay_heartbeats_published_total" + labels + " 4\n")
                .contains(
                        "effonce_relay_last_change_commit_timestamp_seconds" + labels + " 1.7E9\n")
                .contains("effonce_relay_last_change_delay_seconds" + labels + " 0.25\n")
                .contains("effonce_relay_slot_retained_wal_bytes" + labels + " 8192\n");
    }

    @Test
    void anIdleLedgersHeartbeatsLeaveTheLastChangesDelayAsItWas() {
        RelayMetrics m = new RelayMetrics();
        m.published(40, 4, 1_000, 1_700_000_000_000L, 1_700_000_000_250L);
        // An hour of heartbeats alone, acknowledged by Kafka: no change among them.
        m.published(0, 4, 2_000, -1, 1_700_003_600_000L);
        String text = RelayMetricsText.render(m, "ledger", "t", OptionalLong.empty());
        assertThat(text)
                .contains(
                        "effonce_relay_last_change_delay_seconds{slot=\"ledger\",topic=\"t\"} 0.25\n")
                .contains(
                        "effonce_relay_last_ack_timestamp_seconds{slot=\"ledger\",topic=\"t\"}"
                                + " 1.7000036E9\n");
    }

    @Test
    void whatIsNotKnownYetIsLeftOut() {
        String text = RelayMetricsText.render(new RelayMetrics(), "s", "t", OptionalLong.empty());
        assertThat(text)
                .contains("effonce_relay_changes_published_total{slot=\"s\",topic=\"t\"} 0\n")
                .doesNotContain("timestamp_seconds", "delay_seconds", "retained_wal_bytes");
    }
}
