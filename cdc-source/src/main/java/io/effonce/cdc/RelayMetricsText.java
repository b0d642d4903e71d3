package io.effonce.cdc;

import java.util.OptionalLong;

/**
 * The relay's metrics in Prometheus's text exposition format, labelled with the slot and topic.
 * Times are seconds (Prometheus's base unit); a value not known yet is left out.
 */
final class RelayMetricsText {

    private RelayMetricsText() {}

    static String render(
            RelayMetrics m, String slot, String topic, OptionalLong slotRetainedWalBytes) {
        String labels = "{slot=\"" + escape(slot) + "\",topic=\"" + escape(topic) + "\"}";
        StringBuilder out = new StringBuilder();
        counter(
                out,
                "effonce_relay_changes_published_total",
                "Change records Kafka acknowledged in this run of the relay.",
                labels,
                m.changesPublished());
        counter(
                out,
                "effonce_relay_heartbeats_published_total",
                "Heartbeats the relay forwarded to every partition in this run.",
                labels,
                m.heartbeatsPublished());
        counter(
                out,
                "effonce_relay_snapshot_rows_published_total",
                "Rows of an initial snapshot of the ledger Kafka acknowledged in this run.",
                labels,
                m.snapshotRowsPublished());
        if (m.lastSourceTsMs() >= 0) {
            gauge(
                    out,
                    "effonce_relay_last_change_commit_timestamp_seconds",
                    "When the ledger committed the last change Kafka acknowledged (Unix time).",
                    labels,
                    seconds(m.lastSourceTsMs()));
        }
        if (m.lastAckedAtMs() >= 0) {
            gauge(
                    out,
                    "effonce_relay_last_ack_timestamp_seconds",
                    "When Kafka last acknowledged a batch of the relay (Unix time).",
                    labels,
                    seconds(m.lastAckedAtMs()));
        }
        if (m.lastChangeDelayMs() >= 0) {
            gauge(
                    out,
                    "effonce_relay_last_change_delay_seconds",
                    "The last acknowledged change's time from the ledger's commit to Kafka's ack.",
                    labels,
                    seconds(m.lastChangeDelayMs()));
        }
        if (slotRetainedWalBytes.isPresent()) {
            gauge(
                    out,
                    "effonce_relay_slot_retained_wal_bytes",
                    "WAL the ledger keeps for the relay's slot: from the slot's confirmed"
                            + " position to the ledger's current one.",
                    labels,
                    Long.toString(slotRetainedWalBytes.getAsLong()));
        }
        return out.toString();
    }

    private static void counter(
            StringBuilder out, String name, String help, String labels, long value) {
        metric(out, name, "counter", help, labels, Long.toString(value));
    }

    private static void gauge(
            StringBuilder out, String name, String help, String labels, String value) {
        metric(out, name, "gauge", help, labels, value);
    }

    private static void metric(
            StringBuilder out, String name, String type, String help, String labels, String v) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        out.append(name).append(labels).append(' ').append(v).append('\n');
    }

    private static String seconds(long millis) {
        return Double.toString(millis / 1000.0);
    }

    private static String escape(String label) {
        return label.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
